package httpapi

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"
)

// A panic is answered 500 in the catalogue's shape with the headers every
// answer carries (WithSecurityHeaders), its CSP among them: the edge's
// order (app.Handler) puts WithRecover outside WithSecurityHeaders, so the
// answer is written past the writer that adds the CSP.
func TestPanicAnswerCarriesSecurityHeaders(t *testing.T) {
	t.Parallel()
	h := Chain(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { panic("boom") }),
		WithRequestID("test"), WithErrorShapes(&ErrorShapes{}), WithClientIP(nil),
		WithRecover(), WithSecurityHeaders(true), WithBodyLimit(1<<10), WithCleanInput())
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/v1/x", nil))
	var body errorBody
	if err := json.Unmarshal(rec.Body.Bytes(), &body); err != nil || rec.Code != 500 || body.ErrorType != "internal_server_error" {
		t.Fatalf("panic answered %d %s (%v)", rec.Code, rec.Body, err)
	}
	for k, want := range map[string]string{"X-Content-Type-Options": "nosniff", "Strict-Transport-Security": "max-age=31536000",
		"Content-Security-Policy": APICSP, "Cache-Control": "no-store"} {
		if got := rec.Header().Get(k); got != want {
			t.Errorf("panic answer: %s %q, want %q", k, got, want)
		}
	}
}
