package httpapi

import (
	"net/http"

	"github.com/latchkey/latchkey/internal/apierr"
)

// Error shapes. A protocol served under a path prefix in its own JSON
// (SCIM, at /v1/b2b/scim/{connection_id}/) answers every error there in
// its shape, its clients parsing no other: also those the edge raises
// before any of its handlers runs, namely a body over the limit, input
// WithCleanInput refuses, a path or method no route serves, and a panic.
// The module's route table says where (Route.Errors, ErrorShapeRoute);
// httpapi knows no protocol. The shape is looked up only when there is an
// error to write, so the requests that succeed pay nothing for it.

// ErrorWriter answers a public error in a protocol's own shape.
type ErrorWriter func(w http.ResponseWriter, r *http.Request, e *apierr.Error)

// ErrorShapes maps path patterns (ServeMux patterns without a method) to
// the shapes the edge's errors take there. As in a ServeMux the most
// specific pattern matching a path wins, so a part of a protocol's
// subtree can keep the catalogue's shape (CatalogueShape).
type ErrorShapes struct {
	mux     *http.ServeMux // matches only; never serves
	writers map[string]ErrorWriter
}

// Add registers wr for the paths pattern matches. A pattern already
// registered keeps its first writer (routes of one path share a shape).
func (s *ErrorShapes) Add(pattern string, wr ErrorWriter) {
	if s.mux == nil {
		s.mux, s.writers = http.NewServeMux(), map[string]ErrorWriter{}
	}
	if _, ok := s.writers[pattern]; ok {
		return
	}
	s.mux.Handle(pattern, http.NotFoundHandler())
	s.writers[pattern] = wr
}

// writer is the shape registered for r's path, or nil for the catalogue's.
// An unclean path (dot segments, doubled slashes) has none: it names no
// route (JSONNotFound refuses it), though the mux would match it cleaned,
// and so the path of another subtree ("connection/../x").
func (s *ErrorShapes) writer(r *http.Request) ErrorWriter {
	if s == nil || s.mux == nil || !canonical(r.URL.Path) {
		return nil
	}
	_, pattern := s.mux.Handler(r)
	return s.writers[pattern]
}

// CatalogueShape is the catalogue's own shape (WriteError), for a part of
// a subtree whose errors stay in it.
func CatalogueShape(w http.ResponseWriter, r *http.Request, e *apierr.Error) { WriteError(w, r, e) }

// WithErrorShapes gives the edge's own refusals (WithBodyLimit,
// WithCleanInput, WithRecover and JSONNotFound, behind it) the shapes s
// registers for their paths.
func WithErrorShapes(s *ErrorShapes) Middleware {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			r, st := withState(r)
			st.shapes = s
			next.ServeHTTP(w, r)
		})
	}
}

// writeEdgeError answers an error the edge raises itself: in the shape
// registered for the request's path, else in the catalogue's.
func writeEdgeError(w http.ResponseWriter, r *http.Request, err error) {
	if st := stateOf(r.Context()); st != nil {
		if wr := st.shapes.writer(r); wr != nil {
			wr(w, r, PublicError(err))
			return
		}
	}
	WriteError(w, r, err)
}
