package httpapi

import (
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// credPolicy allows good.test for any request, and mine.test only for a
// request whose Basic user is "mine" (as a project's origin is allowed
// only with its public token); it panics for panic.test.
type credPolicy struct{}

func (credPolicy) AllowOrigin(r *http.Request, origin string, _ bool) bool {
	user, _, _ := BasicAuth(r)
	switch origin {
	case "https://panic.test":
		panic("policy")
	case "https://good.test":
		return true
	case "https://mine.test":
		return user == "mine"
	}
	return false
}

// The edge's refusals on a path behind WithCORS (a body over the limit,
// dirty input, a panic before the face) carry the CORS answer for an
// origin the policy allows without credentials, and none for another or
// elsewhere; a refusal raised behind WithCORS (a panic in a handler) keeps
// WithCORS's answer, allowed or not.
func TestEdgeRefusalsCarryTheCORSAnswer(t *testing.T) {
	boom := http.HandlerFunc(func(http.ResponseWriter, *http.Request) { panic("boom") })
	ok := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusNoContent) })
	face := http.NewServeMux()
	face.Handle("POST /sdk/ok", ok)
	face.Handle("POST /sdk/boom", boom)
	mux := http.NewServeMux()
	mux.Handle("/sdk/", WithCORS(credPolicy{})(face))
	mux.Handle("POST /sdk-outside/boom", boom) // a panic before the face's WithCORS runs
	mux.Handle("POST /other/ok", ok)
	shapes := &ErrorShapes{}
	refusals := CORSOnRefusal(credPolicy{}, CatalogueShape)
	shapes.Add("/sdk/", refusals)
	shapes.Add("/sdk-outside/", refusals)
	h := Chain(JSONNotFound(mux), WithRequestID("test"), WithErrorShapes(shapes), WithLogging(slog.New(slog.DiscardHandler)),
		WithRecover(), WithBodyLimit(1<<10), WithCleanInput())

	big := strings.Repeat("x", 2<<10)
	for _, tc := range []struct {
		target, body, origin, user string
		status                     int
		acao                       bool
	}{
		{"/sdk/ok", "{}", "https://good.test", "", 204, true},
		{"/sdk/ok", big, "https://good.test", "", 413, true},
		{"/sdk/ok", big, "https://evil.test", "", 413, false},
		{"/sdk/ok", big, "", "", 413, false},
		{"/sdk/ok?q=%00", "{}", "https://good.test", "", 400, true},
		{"/sdk/ok?q=%00", "{}", "https://evil.test", "", 400, false},
		{"/sdk/ok", "{}", "https://good.test", "bad\xff", 400, true},
		{"/sdk/ok", "{}", "https://evil.test", "bad\xff", 400, false},
		// The refused request's credentials are not read: mine.test is
		// not allowed without them.
		{"/sdk/ok", big, "https://mine.test", "mine", 413, false},
		// A policy that panics allows nothing, and the refusal is answered.
		{"/sdk/ok", big, "https://panic.test", "", 413, false},
		{"/sdk-outside/boom", "{}", "https://good.test", "", 500, true},
		{"/sdk-outside/boom", "{}", "https://evil.test", "", 500, false},
		{"/sdk/boom", "{}", "https://good.test", "", 500, true},
		{"/sdk/boom", "{}", "https://mine.test", "mine", 500, true},
		{"/sdk/boom", "{}", "https://mine.test", "other", 500, false},
		{"/other/ok", big, "https://good.test", "", 413, false},
	} {
		req := httptest.NewRequest(http.MethodPost, "http://x"+tc.target, strings.NewReader(tc.body))
		req.Header.Set("Content-Type", "application/json")
		if tc.origin != "" {
			req.Header.Set("Origin", tc.origin)
		}
		if tc.user != "" {
			req.SetBasicAuth(tc.user, "pass")
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		acao := rec.Header().Get("Access-Control-Allow-Origin")
		if rec.Code != tc.status || (acao != "") != tc.acao || tc.acao && (acao != tc.origin ||
			rec.Header().Get("Access-Control-Allow-Credentials") != "true") {
			t.Errorf("POST %s from %q (user %q): %d, Allow-Origin %q, Allow-Credentials %q; want %d, allowed %t",
				tc.target, tc.origin, tc.user, rec.Code, acao, rec.Header().Get("Access-Control-Allow-Credentials"), tc.status, tc.acao)
		}
		if vary := rec.Header().Values("Vary"); strings.HasPrefix(tc.target, "/sdk") && len(vary) != 1 {
			t.Errorf("POST %s from %q: Vary %q, want Origin once", tc.target, tc.origin, vary)
		}
	}
}
