package httpapi

import (
	"context"
	"net/http"
	"time"
)

// routeLabel is filled in by the route that matched, deep inside the
// handler chain, and read by WithObserver at the top once the request is
// done (it lives in the request's state, shared by every copy).
type routeLabel struct{ pattern string }

// Unmatched is the route label of a request no route matched.
const Unmatched = "unmatched"

// SetRoute names the mux pattern that is serving the request (the route
// table does it for every mounted route); the innermost call wins.
func SetRoute(ctx context.Context, pattern string) {
	if st := stateOf(ctx); st != nil {
		st.route.pattern = pattern
	}
}

// RouteOf returns the pattern SetRoute recorded, or Unmatched.
func RouteOf(ctx context.Context) string {
	if st := stateOf(ctx); st != nil && st.route.pattern != "" {
		return st.route.pattern
	}
	return Unmatched
}

// SetProject records the project the request's credentials were checked
// for (the face's authentication middleware calls it), so that code
// outside that middleware, which sees only the outer request, files what it
// records under a project the caller proved, never one it merely named.
func SetProject(ctx context.Context, projectID string) {
	if st := stateOf(ctx); st != nil {
		st.projectID = projectID
	}
}

// ProjectOf returns the project SetProject recorded, or "" when the
// request's credentials were not (or not yet) accepted.
func ProjectOf(ctx context.Context) string {
	if st := stateOf(ctx); st != nil {
		return st.projectID
	}
	return ""
}

// WithObserver calls observe once per request with its route pattern
// (never the raw path, so labels stay a bounded set), status and duration.
func WithObserver(observe func(route string, status int, d time.Duration)) Middleware {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			start := time.Now()
			r, st := withState(r)
			rec := &st.rec
			if st.observed { // observed twice: the outer one owns st.rec
				rec = &Recorder{}
			}
			st.observed = true
			*rec = Recorder{ResponseWriter: w}
			next.ServeHTTP(rec, r)
			status := rec.Status
			if status == 0 {
				status = http.StatusOK
			}
			observe(RouteOf(r.Context()), status, time.Since(start))
		})
	}
}
