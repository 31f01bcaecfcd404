package httpapi

import (
	"net/http"
	"net/url"
	"strings"
)

// ExactRoutes serves the routes without wildcards, such as the session
// check, from a map keyed by path, ahead of JSONNotFound: an SDK request
// was matched twice by ServeMux (the root mux's "/sdk/v1/", then the SDK
// mux), which was a visible share of a session check. A route is recorded
// only after asking the muxes themselves which pattern they choose for its
// method and path, and a request is looked up only when its path is
// spelled exactly as the pattern's (canonical, no escapes), so a hit is
// what the muxes would have served. Everything else (wildcards, HEAD for a
// GET route, OPTIONS preflights, 404s and 405s, unclean or escaped paths)
// goes to the muxes as before. No route may name a host: Add drops the
// whole table when one does, since the mux prefers a host's route.
type ExactRoutes struct {
	paths map[string][]exactRoute
	host  bool
}

// exactRoute is one method of one path; a path has a few at most.
type exactRoute struct {
	method, pattern string
	h               http.Handler
}

// Add records h as what serves pattern when the root mux top chooses
// pattern itself for a request of its method and path. Give it every
// route mounted on top: only exact ones are recorded, but any pattern
// naming a host turns the table off.
func (t *ExactRoutes) Add(top *http.ServeMux, pattern string, h http.Handler) {
	t.add(pattern, h, func(r *http.Request) bool { return chosen(top, r) == pattern })
}

// AddMounted records h for a route of the mux inner, mounted on top at
// the prefix pattern mount: top must choose mount and inner pattern. h is
// the route's handler wrapped in what the mount puts in front of inner
// (its middleware), so that a hit passes through the same chain.
func (t *ExactRoutes) AddMounted(top *http.ServeMux, mount string, inner *http.ServeMux, pattern string, h http.Handler) {
	t.add(pattern, h, func(r *http.Request) bool { return chosen(top, r) == mount && chosen(inner, r) == pattern })
}

func (t *ExactRoutes) add(pattern string, h http.Handler, chooses func(*http.Request) bool) {
	method, path, ok := strings.Cut(pattern, " ")
	if !ok {
		method, path = "", pattern
	}
	if !strings.HasPrefix(path, "/") {
		t.host = true
		return
	}
	if method == "" || !exactPath(path) {
		return
	}
	if !chooses(&http.Request{Method: method, URL: &url.URL{Path: path}}) {
		return
	}
	if t.paths == nil {
		t.paths = map[string][]exactRoute{}
	}
	t.paths[path] = append(t.paths[path], exactRoute{method: method, pattern: pattern, h: h})
}

// chosen is the pattern mux picks for r, or "" when none (a 404 or 405).
func chosen(mux *http.ServeMux, r *http.Request) string {
	_, p := mux.Handler(r)
	return p
}

// exactPath reports whether a pattern's path is one literal path that a
// request spells the same way escaped or not: canonical, no trailing
// slash, no wildcard, and only characters a URL path never escapes.
func exactPath(p string) bool {
	if len(p) < 2 || strings.HasSuffix(p, "/") || !canonical(p) {
		return false
	}
	for i := 0; i < len(p); i++ {
		c := p[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '/' || c == '-' || c == '_' || c == '.') {
			return false
		}
	}
	return true
}

// Handler serves an exact hit as JSONNotFound does a pattern without
// wildcards (r.Pattern set, then the route's handler), and any other
// request through fallback, the JSONNotFound of the root mux.
func (t *ExactRoutes) Handler(fallback http.Handler) http.Handler {
	if t.host || len(t.paths) == 0 {
		return fallback
	}
	paths := t.paths
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// RawPath is set only when the path was sent with escapes
		// ServeMux reads segment by segment ("%2F"): leave those to it.
		if r.URL.RawPath == "" {
			for _, rt := range paths[r.URL.Path] {
				if rt.method == r.Method {
					r.Pattern = rt.pattern
					rt.h.ServeHTTP(w, r)
					return
				}
			}
		}
		fallback.ServeHTTP(w, r)
	})
}
