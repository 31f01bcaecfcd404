package httpapi

import (
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/latchkey/latchkey/internal/apierr"
)

// The edge's own refusals (a body over the limit, dirty input, no route,
// no such method, a panic) take the shape registered for the request's
// path, the most specific pattern winning; other paths, and a part of a
// subtree given back to the catalogue, keep the catalogue's JSON.
func TestEdgeErrorsTakeThePathsShape(t *testing.T) {
	proto := func(w http.ResponseWriter, r *http.Request, e *apierr.Error) {
		w.Header().Set("Content-Type", "application/proto")
		w.WriteHeader(e.Status)
		_, _ = w.Write([]byte("proto " + string(e.Type)))
	}
	shapes := &ErrorShapes{}
	shapes.Add("/p/{id}/{rest...}", proto)
	shapes.Add("/p/{id}/admin/{rest...}", CatalogueShape)

	mux := http.NewServeMux()
	mux.HandleFunc("POST /p/{id}/things", func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusNoContent) })
	mux.HandleFunc("POST /p/{id}/admin/x", func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusNoContent) })
	mux.HandleFunc("POST /json", func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusNoContent) })
	mux.HandleFunc("POST /p/{id}/boom", func(w http.ResponseWriter, r *http.Request) { panic("boom") })
	h := Chain(JSONNotFound(mux), WithRequestID("test"), WithErrorShapes(shapes), WithLogging(slog.New(slog.DiscardHandler)),
		WithRecover(), WithBodyLimit(1<<10), WithCleanInput())

	for _, tc := range []struct {
		method, target, body string
		status               int
		want                 string // the body's start: "proto <type>", or the catalogue's error_type
	}{
		{"POST", "/p/1/things", "{}", 204, ""},
		{"POST", "/p/1/things", strings.Repeat("x", 2<<10), 413, "proto request_too_large"},
		{"POST", "/p/1/nope", "{}", 404, "proto route_not_found"},
		{"GET", "/p/1/things", "", 405, "proto method_not_allowed"},
		{"POST", "/p/1/things?q=%FF", "{}", 400, "proto invalid_request"},
		{"POST", "/p/1/boom", "{}", 500, "proto internal_server_error"},
		{"POST", "/p/1/admin/x", strings.Repeat("x", 2<<10), 413, `"request_too_large"`},
		{"POST", "/p/1/admin/nope", "{}", 404, `"route_not_found"`},
		{"POST", "/json", strings.Repeat("x", 2<<10), 413, `"request_too_large"`},
		{"POST", "/nope", "{}", 404, `"route_not_found"`},
		{"POST", "/p/1/admin/../nope", "{}", 404, `"route_not_found"`}, // unclean: no route's path
	} {
		req := httptest.NewRequest(tc.method, "http://x"+tc.target, strings.NewReader(tc.body))
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		body := rec.Body.String()
		ok := rec.Code == tc.status
		switch {
		case tc.want == "":
		case strings.HasPrefix(tc.want, "proto"):
			ok = ok && body == tc.want && rec.Header().Get("Content-Type") == "application/proto"
		default:
			ok = ok && strings.Contains(body, `"error_type":`+tc.want) && strings.HasPrefix(rec.Header().Get("Content-Type"), "application/json")
		}
		if !ok {
			t.Errorf("%s %s: %d %q (%s), want %d %s", tc.method, tc.target, rec.Code, body, rec.Header().Get("Content-Type"), tc.status, tc.want)
		}
	}
}
