package httpapi

import (
	"io"
	"log"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/latchkey/latchkey/internal/syncbuf"
)

// A panic after the handler began its answer cannot be answered 500: the
// status and part of the body are gone already. net/http's convention is
// to abort the connection (http.ErrAbortHandler), so the client sees a
// broken answer. WithRecover wrote its 500 anyway, which net/http appended
// to the partial body (the status change is dropped): the client read a
// whole 200 whose body ended in the catalogue's 500 JSON. The panic is
// logged once, by WithRecover, without the request's credentials.
func TestPanicAfterTheAnswerBeganAbortsTheConnection(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name    string
		flush   bool // the status and the partial body reached the client
		chained bool // behind the edge's observer and logger, as in app.Handler
	}{
		{"flushed, behind the edge", true, true},
		{"buffered, behind the edge", false, true},
		{"flushed, recover alone", true, false},
		{"buffered, recover alone", false, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			h := http.Handler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "application/json")
				_, _ = io.WriteString(w, `{"items":[`)
				if c.flush {
					_ = http.NewResponseController(w).Flush()
				}
				panic("boom")
			}))
			logs := &syncbuf.Buffer{}
			if c.chained {
				h = Chain(h, WithObserver(func(string, int, time.Duration) {}), WithRequestID("test"),
					WithErrorShapes(&ErrorShapes{}), WithClientIP(nil),
					WithLogging(slog.New(slog.NewJSONHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))),
					WithRecover(), WithSecurityHeaders(true), WithBodyLimit(1<<10), WithCleanInput())
			} else {
				h = WithRecover()(h)
			}
			srv := httptest.NewUnstartedServer(h)
			srv.Config.ErrorLog = log.New(io.Discard, "", 0)
			srv.Start()
			t.Cleanup(srv.Close)

			req, _ := http.NewRequest(http.MethodGet, srv.URL+"/v1/x?token=secret-in-query", nil)
			req.Header.Set("Authorization", "Bearer secret-in-header")
			res, err := srv.Client().Do(req)
			if err == nil {
				body, readErr := io.ReadAll(res.Body)
				res.Body.Close()
				if readErr == nil || strings.Contains(string(body), "internal_server_error") {
					t.Fatalf("the client read a whole answer (%d, %v): %s", res.StatusCode, readErr, body)
				}
			}
			if !c.chained {
				return
			}
			out := logs.String()
			if n := strings.Count(out, `"level":"ERROR"`); n != 1 || !strings.Contains(out, "boom") ||
				!strings.Contains(out, `"request_id":"request-id-test-`) || strings.Contains(out, "secret-in-") {
				t.Errorf("want the panic logged once, with its request id and no credentials (%d errors):\n%s", n, out)
			}
		})
	}
}

// An informational status (103 Early Hints) does not begin the answer: a
// panic after it is still answered 500, not aborted.
func TestPanicAfterAnInformationalStatusIsAnswered500(t *testing.T) {
	t.Parallel()
	h := Chain(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Link", "</app.css>; rel=preload; as=style")
		w.WriteHeader(http.StatusEarlyHints)
		panic("boom")
	}), WithObserver(func(string, int, time.Duration) {}), WithRequestID("test"), WithErrorShapes(&ErrorShapes{}),
		WithLogging(slog.New(slog.DiscardHandler)), WithRecover(), WithSecurityHeaders(true))
	srv := httptest.NewUnstartedServer(h)
	srv.Config.ErrorLog = log.New(io.Discard, "", 0)
	srv.Start()
	t.Cleanup(srv.Close)
	res, err := srv.Client().Get(srv.URL + "/v1/x")
	if err != nil {
		t.Fatalf("aborted: %v", err)
	}
	body, err := io.ReadAll(res.Body)
	res.Body.Close()
	if err != nil || res.StatusCode != http.StatusInternalServerError || !strings.Contains(string(body), "internal_server_error") {
		t.Fatalf("answered %d %s (%v), want the catalogue's 500", res.StatusCode, body, err)
	}
}
