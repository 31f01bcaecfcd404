package httpapi

import (
	"context"
	"net/http"
	"time"
)

type routeKey struct{}

// routeLabel is filled in by the route that matched, deep inside the
// handler chain, and read by WithObserver at the top once the request is
// done; a request copied by WithContext shares the same label.
type routeLabel struct{ pattern string }

// Unmatched is the route label of a request no route matched.
const Unmatched = "unmatched"

// SetRoute names the mux pattern that is serving the request (the route
// table does it for every mounted route); the innermost call wins.
func SetRoute(ctx context.Context, pattern string) {
	if l, ok := ctx.Value(routeKey{}).(*routeLabel); ok {
		l.pattern = pattern
	}
}

// RouteOf returns the pattern SetRoute recorded, or Unmatched.
func RouteOf(ctx context.Context) string {
	if l, ok := ctx.Value(routeKey{}).(*routeLabel); ok && l.pattern != "" {
		return l.pattern
	}
	return Unmatched
}

// WithObserver calls observe once per request with its route pattern
// (never the raw path, so labels stay a bounded set), status and duration.
func WithObserver(observe func(route string, status int, d time.Duration)) Middleware {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			start := time.Now()
			label := &routeLabel{}
			rec := &Recorder{ResponseWriter: w}
			next.ServeHTTP(rec, r.WithContext(context.WithValue(r.Context(), routeKey{}, label)))
			status := rec.Status
			if status == 0 {
				status = http.StatusOK
			}
			route := label.pattern
			if route == "" {
				route = Unmatched
			}
			observe(route, status, time.Since(start))
		})
	}
}
