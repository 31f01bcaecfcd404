package httpapi

import (
	"net/http"
	"net/http/httptest"
	"testing"
)

// A path with dot segments or doubled slashes is not found in the
// catalogue's shape; the mux would otherwise redirect it to another route.
func TestJSONNotFoundRefusesUncleanPaths(t *testing.T) {
	mux := http.NewServeMux()
	mux.HandleFunc("DELETE /v1/orgs/{id}", func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(204) })
	mux.HandleFunc("GET /v1/orgs", func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(200) })
	h := JSONNotFound(mux)
	for target, want := range map[string]int{
		"/v1/orgs/abc":        204,
		"/v1/orgs/abc/..":     404,
		"/v1/orgs/./abc":      404,
		"/v1//orgs/abc":       404,
		"/v1/orgs/abc/../xyz": 404,
		"/v1/nothing":         404,
	} {
		req := httptest.NewRequest(http.MethodDelete, "http://x/", nil)
		req.URL.Path = target
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code != want || (want == 404 && rec.Header().Get("Content-Type") != "application/json; charset=utf-8") {
			t.Errorf("%s: %d %q, want %d", target, rec.Code, rec.Header().Get("Content-Type"), want)
		}
	}
}
