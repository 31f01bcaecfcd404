package httpapi

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/latchkey/latchkey/internal/syncbuf"
)

// abandonServer serves h behind the observer and the logger, and reports
// each request's observed status on the channel it returns.
func abandonServer(t *testing.T, h http.HandlerFunc) (*httptest.Server, <-chan int, *syncbuf.Buffer) {
	t.Helper()
	logs := &syncbuf.Buffer{}
	log := slog.New(slog.NewJSONHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	statuses := make(chan int, 1)
	observe := WithObserver(func(_ string, status int, _ time.Duration) { statuses <- status })
	srv := httptest.NewServer(observe(WithLogging(log)(h)))
	t.Cleanup(srv.Close)
	return srv, statuses, logs
}

// A client that hangs up while its request waits (as on a hashing slot)
// leaves an error wrapping the request's context.Canceled: it is counted
// and logged as 499 at info, not as the server's own 500 at error.
func TestAnErrorFromAClientThatLeftIsNotAServerError(t *testing.T) {
	t.Parallel()
	started := make(chan struct{})
	srv, statuses, logs := abandonServer(t, func(w http.ResponseWriter, r *http.Request) {
		close(started)
		<-r.Context().Done()
		WriteError(w, r, fmt.Errorf("waiting for a slot: %w", r.Context().Err()))
	})
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, srv.URL+"/x", nil)
	go func() { <-started; cancel() }()
	if res, err := http.DefaultClient.Do(req); err == nil {
		res.Body.Close()
		t.Fatalf("the request answered %d after its client left", res.StatusCode)
	}
	if got := <-statuses; got != StatusClientClosedRequest {
		t.Errorf("observed status %d, want %d", got, StatusClientClosedRequest)
	}
	out := logs.String()
	if strings.Contains(out, `"level":"ERROR"`) || !strings.Contains(out, `"msg":"request abandoned by the client"`) ||
		!strings.Contains(out, `"status":499`) {
		t.Errorf("logs:\n%s", out)
	}
}

// The same error while the client is still there is the server's: a
// context of its own was cancelled, and that is a 500 logged as an error.
func TestACanceledErrorWithTheClientStillThereIsAServerError(t *testing.T) {
	t.Parallel()
	srv, statuses, logs := abandonServer(t, func(w http.ResponseWriter, r *http.Request) {
		WriteError(w, r, fmt.Errorf("a worker of its own: %w", context.Canceled))
	})
	res, err := http.Post(srv.URL+"/x", "application/json", nil)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusInternalServerError || <-statuses != http.StatusInternalServerError {
		t.Errorf("status %d, want 500", res.StatusCode)
	}
	if out := logs.String(); !strings.Contains(out, `"level":"ERROR"`) || !strings.Contains(out, "internal_server_error") {
		t.Errorf("logs:\n%s", out)
	}
}
