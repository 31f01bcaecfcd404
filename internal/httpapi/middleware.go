package httpapi

import (
	"bytes"
	"context"
	"crypto/rand"
	"fmt"
	"log/slog"
	"net/http"
	"runtime/debug"
	"time"

	"github.com/latchkey/latchkey/internal/apierr"
)

// Logger is the request's logger (with its request id), for handlers that
// answer in a protocol's own format and so log their failures themselves.
func Logger(ctx context.Context) *slog.Logger { return logger(ctx) }

// logger returns the request's logger (set by WithLogging).
func logger(ctx context.Context) *slog.Logger {
	if st := stateOf(ctx); st != nil && st.logger != nil {
		return st.logger
	}
	return slog.Default()
}

// RequestID returns the request id stored by WithRequestID.
func RequestID(ctx context.Context) string {
	if st := stateOf(ctx); st != nil {
		return st.requestID
	}
	return ""
}

// Middleware wraps a handler.
type Middleware func(http.Handler) http.Handler

// Chain applies middleware so that the first listed runs outermost.
func Chain(h http.Handler, mw ...Middleware) http.Handler {
	for i := len(mw) - 1; i >= 0; i-- {
		h = mw[i](h)
	}
	return h
}

// WithRequestID assigns every request an id, returned in X-Request-Id and
// in every response body, so support can find a request in the logs.
func WithRequestID(env string) Middleware {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			r, st := withState(r)
			st.requestID = newRequestID(env)
			w.Header()["X-Request-Id"] = []string{st.requestID}
			next.ServeHTTP(w, r)
		})
	}
}

// newRequestID is "request-id-{env}-" and a random (version 4) UUID, built
// in one allocation.
func newRequestID(env string) string {
	var u [16]byte
	if _, err := rand.Read(u[:]); err != nil {
		panic(fmt.Errorf("httpapi: crypto/rand: %w", err))
	}
	u[6] = u[6]&0x0f | 0x40
	u[8] = u[8]&0x3f | 0x80
	var buf [128]byte
	b := append(append(append(buf[:0], "request-id-"...), env...), '-')
	for i, c := range u {
		if i == 4 || i == 6 || i == 8 || i == 10 {
			b = append(b, '-')
		}
		b = append(b, hexDigits[c>>4], hexDigits[c&0x0f])
	}
	return string(b)
}

const hexDigits = "0123456789abcdef"

// Recorder passes a response through and remembers its status and, when
// KeepBody is set, up to KeepBody bytes of its body. One type serves the
// logger, the metrics and the audit log, which each need to see what a
// handler answered without changing it.
type Recorder struct {
	http.ResponseWriter
	Status   int
	KeepBody int
	Body     bytes.Buffer
}

// WriteHeader records the first final status written: an informational
// one (1xx, 103 Early Hints) is followed by the real one.
func (s *Recorder) WriteHeader(code int) {
	if s.Status == 0 && (code >= 200 || code == http.StatusSwitchingProtocols) {
		s.Status = code
	}
	s.ResponseWriter.WriteHeader(code)
}

// Write records an implicit 200 and keeps the start of the body.
func (s *Recorder) Write(b []byte) (int, error) {
	if s.Status == 0 {
		s.Status = http.StatusOK
	}
	if room := s.KeepBody - s.Body.Len(); room > 0 {
		s.Body.Write(b[:min(len(b), room)])
	}
	return s.ResponseWriter.Write(b)
}

// Unwrap lets http.ResponseController reach the underlying writer.
func (s *Recorder) Unwrap() http.ResponseWriter { return s.ResponseWriter }

// WithLogging logs one line per request: method, path (never the query,
// which can carry tokens), status, duration and request id. Successful
// requests log at debug: at production rates a line per session check
// costs more than the check itself, and the errors (logged at info and
// above, with their cause by WriteError) are what an operator looks for.
func WithLogging(log *slog.Logger) Middleware {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			start := time.Now()
			r, st := withState(r)
			st.logger = log
			var status int
			if st.observed {
				// WithObserver's recorder already sees every status.
				next.ServeHTTP(w, r)
				status = st.rec.Status
			} else {
				rec := &Recorder{ResponseWriter: w}
				next.ServeHTTP(rec, r)
				status = rec.Status
			}
			level := slog.LevelDebug
			switch {
			case status >= 500:
				level = slog.LevelError
			case status >= 400:
				level = slog.LevelInfo
			}
			if !log.Enabled(r.Context(), level) {
				return
			}
			log.LogAttrs(r.Context(), level, "http",
				slog.String("method", r.Method), slog.String("path", r.URL.Path),
				slog.Int("status", status), slog.Duration("duration", time.Since(start)),
				slog.String("request_id", RequestID(r.Context())))
		})
	}
}

// WithRecover turns a panic into a 500 in the catalogue's shape (or the
// one registered for the path).
//
// A panic after the answer began (its status sent, part of its body
// perhaps too) cannot be answered so: net/http drops the second status and
// appends the 500's body to the partial one, and the client reads a whole
// answer that is neither. It is logged here, once, and the connection is
// aborted (http.ErrAbortHandler, which net/http neither logs nor answers),
// so the client sees a broken answer, net/http's convention.
func WithRecover() Middleware {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			// The edge's recorder (WithObserver's, or WithLogging's) sees
			// whether the answer began; alone, WithRecover adds its own.
			rec, ok := w.(*Recorder)
			if !ok {
				rec = &Recorder{ResponseWriter: w}
				w = rec
			}
			defer func() {
				if v := recover(); v != nil {
					if v == http.ErrAbortHandler {
						panic(v)
					}
					cause := fmt.Errorf("panic: %v\n%s", v, debug.Stack())
					if rec.Status != 0 {
						abortStarted(r, rec.Status, cause)
					}
					writeEdgeError(w, r, apierr.Wrap(apierr.InternalServerError, cause))
				}
			}()
			next.ServeHTTP(w, r)
		})
	}
}

// abortStarted logs a panic of a request whose answer began with status,
// and aborts its connection. The log line names the request (id, method,
// path, never the query or the headers, which can carry credentials) as
// WithLogging's does, whose own line is skipped by the abort.
func abortStarted(r *http.Request, status int, cause error) {
	ctx := r.Context()
	logger(ctx).LogAttrs(ctx, slog.LevelError, "panic after the answer began; connection aborted",
		slog.String("request_id", RequestID(ctx)), slog.String("method", r.Method), slog.String("path", r.URL.Path),
		slog.Int("status", status), slog.String("cause", cause.Error()))
	panic(http.ErrAbortHandler)
}

// WithDeadline ends every request's context after d (config's
// RequestTimeout, the server's WriteTimeout, after which its answer could
// not be written anyway). A request whose database stopped answering (a
// partition begun after the change feed's last check, a server that takes
// packets and never answers, where TCP gives up only after minutes or
// never) so ends, and releases what it holds, instead of waiting for the
// client to go away.
func WithDeadline(d time.Duration) Middleware {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			ctx, cancel := context.WithTimeout(r.Context(), d)
			defer cancel()
			next.ServeHTTP(w, r.WithContext(ctx))
		})
	}
}

// WithBodyLimit caps request bodies; Decode reports request_too_large. A
// body whose Content-Length says it is over the limit is refused before
// routing, in the shape registered for its path (WithErrorShapes).
func WithBodyLimit(n int64) Middleware {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.ContentLength > n {
				writeEdgeError(w, r, apierr.New(apierr.RequestTooLarge))
				return
			}
			r.Body = http.MaxBytesReader(w, r.Body, n)
			next.ServeHTTP(w, r)
		})
	}
}
