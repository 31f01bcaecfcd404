package httpapi

import (
	"net/http"
	"net/http/httptest"
	"path"
	"strings"

	"github.com/latchkey/latchkey/internal/apierr"
)

// JSONNotFound wraps a ServeMux so unmatched paths and methods get JSON
// errors in the catalogue's shape instead of the mux's plain text (or in
// the shape registered for the path, see WithErrorShapes). A path
// with dot segments or doubled slashes is not found either: the mux would
// redirect it to the cleaned path, which an API client cannot follow with
// its body, and which lets "members/.." name a different route.
func JSONNotFound(mux *http.ServeMux) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !canonical(r.URL.Path) {
			writeEdgeError(w, r, apierr.New(apierr.RouteNotFound))
			return
		}
		h, pattern := mux.Handler(r)
		if pattern != "" {
			if strings.Contains(pattern, "{") {
				// Only the mux can fill in the path values, by matching
				// again.
				mux.ServeHTTP(w, r)
				return
			}
			// A pattern without wildcards has no path values: serve what
			// was found, as mux.ServeHTTP would after matching a second
			// time (route matching is a visible share of a session check).
			r.Pattern = pattern
			h.ServeHTTP(w, r)
			return
		}
		// The mux answers a miss with 404, or 405 plus an Allow header; run
		// its handler against a recorder only to learn which.
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, r)
		if rec.Code == http.StatusMethodNotAllowed {
			w.Header().Set("Allow", rec.Header().Get("Allow"))
			writeEdgeError(w, r, apierr.New(apierr.MethodNotAllowed))
			return
		}
		writeEdgeError(w, r, apierr.New(apierr.RouteNotFound))
	})
}

// canonical reports whether p is already clean (a trailing slash allowed),
// as the mux's own cleaning would leave it.
func canonical(p string) bool {
	if p == "" || p[0] != '/' {
		return false
	}
	c := path.Clean(p)
	if strings.HasSuffix(p, "/") && c != "/" {
		c += "/"
	}
	return c == p
}
