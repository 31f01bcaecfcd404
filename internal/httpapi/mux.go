package httpapi

import (
	"net/http"
	"net/http/httptest"

	"github.com/latchkey/latchkey/internal/apierr"
)

// JSONNotFound wraps a ServeMux so unmatched paths and methods get JSON
// errors in the catalogue's shape instead of the mux's plain text.
func JSONNotFound(mux *http.ServeMux) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h, pattern := mux.Handler(r)
		if pattern != "" {
			mux.ServeHTTP(w, r)
			return
		}
		// The mux answers a miss with 404, or 405 plus an Allow header; run
		// its handler against a recorder only to learn which.
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, r)
		if rec.Code == http.StatusMethodNotAllowed {
			w.Header().Set("Allow", rec.Header().Get("Allow"))
			WriteError(w, r, apierr.New(apierr.MethodNotAllowed))
			return
		}
		WriteError(w, r, apierr.New(apierr.RouteNotFound))
	})
}
