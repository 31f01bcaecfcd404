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

// exactFixture is a root mux with an SDK-like mux mounted at /sdk/ behind
// a middleware, both recorded in an ExactRoutes; fallbacks counts the
// requests the muxes served.
func exactFixture(t testing.TB) (h, muxes http.Handler, fallbacks *int) {
	t.Helper()
	answer := func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-Pattern", r.Pattern)
		w.Header().Set("X-ID", r.PathValue("id"))
		w.WriteHeader(http.StatusOK)
	}
	front := func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("X-Front", "yes")
			next.ServeHTTP(w, r)
		})
	}
	root, inner := http.NewServeMux(), http.NewServeMux()
	exact := &ExactRoutes{}
	mount := func(m *http.ServeMux, pattern string) {
		m.HandleFunc(pattern, answer)
		if m == root {
			exact.Add(root, pattern, http.HandlerFunc(answer))
		} else {
			exact.AddMounted(root, "/sdk/", inner, pattern, front(http.HandlerFunc(answer)))
		}
	}
	root.Handle("/sdk/", front(JSONNotFound(inner)))
	mount(root, "POST /v1/sessions/authenticate")
	mount(root, "GET /v1/orgs/{id}")
	mount(root, "GET /v1/orgs/search")
	mount(root, "GET /v1/list/")
	mount(root, "POST /sdk/special") // the root's own route beats the mount
	mount(inner, "POST /sdk/sessions/authenticate")
	mount(inner, "GET /sdk/members/{id}")
	mount(inner, "POST /sdk/special")
	n := 0
	fallback := JSONNotFound(root)
	return exact.Handler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n++
		fallback.ServeHTTP(w, r)
	})), fallback, &n
}

// A route without wildcards is served from the exact table with the
// pattern the mux would set, through the mount's middleware; everything
// else goes to the muxes and gets what it always got.
func TestExactRoutes(t *testing.T) {
	t.Parallel()
	h, _, fallbacks := exactFixture(t)
	for _, c := range []struct {
		method, target string
		status         int
		pattern, id    string
		front, exact   bool
	}{
		{"POST", "/v1/sessions/authenticate", 200, "POST /v1/sessions/authenticate", "", false, true},
		{"POST", "/sdk/sessions/authenticate", 200, "POST /sdk/sessions/authenticate", "", true, true},
		{"POST", "/sdk/special", 200, "POST /sdk/special", "", false, true},
		{"GET", "/v1/orgs/search", 200, "GET /v1/orgs/search", "", false, true},
		{"GET", "/v1/orgs/org-1", 200, "GET /v1/orgs/{id}", "org-1", false, false},
		{"GET", "/sdk/members/m-1", 200, "GET /sdk/members/{id}", "m-1", true, false},
		{"GET", "/v1/list/", 200, "GET /v1/list/", "", false, false},
		{"GET", "/v1/list/more", 200, "GET /v1/list/", "", false, false},
		{"HEAD", "/v1/orgs/search", 200, "GET /v1/orgs/search", "", false, false},
		{"GET", "/v1/sessions/authenticate", 405, "", "", false, false},
		{"PATCH", "/sdk/sessions/authenticate", 405, "", "", true, false},
		{"post", "/v1/sessions/authenticate", 405, "", "", false, false},
		{"POST", "/v1/sessions/authenticate/", 404, "", "", false, false},
		{"POST", "/v1//sessions/authenticate", 404, "", "", false, false},
		{"POST", "/v1/x/../sessions/authenticate", 404, "", "", false, false},
		{"POST", "/sdk/./sessions/authenticate", 404, "", "", false, false},
		{"POST", "/v1/sessions%2Fauthenticate", 404, "", "", false, false},
		{"POST", "/v1/sessions/authenticat%65", 200, "POST /v1/sessions/authenticate", "", false, false},
	} {
		r := httptest.NewRequest(c.method, "http://x"+c.target, nil)
		w := httptest.NewRecorder()
		before := *fallbacks
		h.ServeHTTP(w, r)
		exact := *fallbacks == before
		if w.Code != c.status || exact != c.exact || w.Header().Get("X-Front") != map[bool]string{true: "yes"}[c.front] {
			t.Errorf("%s %s: %d, exact %v, front %q; want %d, exact %v, front %v",
				c.method, c.target, w.Code, exact, w.Header().Get("X-Front"), c.status, c.exact, c.front)
		}
		if c.status == 200 && (w.Header().Get("X-Pattern") != c.pattern || w.Header().Get("X-ID") != c.id) {
			t.Errorf("%s %s: pattern %q, id %q; want %q, %q", c.method, c.target,
				w.Header().Get("X-Pattern"), w.Header().Get("X-ID"), c.pattern, c.id)
		}
		if c.status == 405 && (w.Header().Get("Allow") == "" || w.Header().Get("Content-Type") != "application/json; charset=utf-8") {
			t.Errorf("%s %s: 405 without Allow or JSON: %v", c.method, c.target, w.Header())
		}
	}
}

// A route naming a host would be preferred by the mux for that host, so
// its presence turns the table off.
func TestExactRoutesOffWithAHost(t *testing.T) {
	t.Parallel()
	root := http.NewServeMux()
	ok := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(200) })
	exact := &ExactRoutes{}
	for _, p := range []string{"POST /v1/x", "POST api.example/v1/x"} {
		root.Handle(p, ok)
		exact.Add(root, p, ok)
	}
	if len(exact.paths) == 0 {
		t.Fatal("the exact route was not recorded")
	}
	r := httptest.NewRequest("POST", "http://api.example/v1/x", nil)
	w := httptest.NewRecorder()
	exact.Handler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(299) })).ServeHTTP(w, r)
	if w.Code != 299 {
		t.Fatalf("a table with a host route answered itself (%d)", w.Code)
	}
}

// BenchmarkExactRoutes routes an SDK session check (mounted mux) with and
// without the exact table:
//
//	go test ./internal/httpapi/ -run '^$' -bench ExactRoutes -benchmem
func BenchmarkExactRoutes(b *testing.B) {
	exact, muxes, _ := exactFixture(b)
	for name, h := range map[string]http.Handler{"exact": exact, "muxes": muxes} {
		b.Run(name, func(b *testing.B) {
			r := httptest.NewRequest("POST", "http://x/sdk/sessions/authenticate", nil)
			w := &nopWriter{h: http.Header{}}
			b.ReportAllocs()
			for b.Loop() {
				h.ServeHTTP(w, r)
			}
		})
	}
}

type nopWriter struct{ h http.Header }

func (w *nopWriter) Header() http.Header         { return w.h }
func (w *nopWriter) WriteHeader(int)             {}
func (w *nopWriter) Write(p []byte) (int, error) { return len(p), nil }
