package notify

import (
	"context"
	"log/slog"
	"strings"
	"testing"

	"github.com/latchkey/latchkey/internal/clock"
	"github.com/latchkey/latchkey/internal/store/storetest"
	"github.com/latchkey/latchkey/internal/syncbuf"
)

// A queue whose database fails every round (here closed) logs the first
// failure, then at most one a minute: it used to log a line a second for
// as long as the outage lasted.
func TestQueueOutageLogsOnceAMinute(t *testing.T) {
	t.Parallel()
	db := storetest.SQLite(t)
	logs := &syncbuf.Buffer{}
	q := NewQueue(db, clock.Real{}, testBox(t), nil, slog.New(slog.NewTextHandler(logs, nil)))
	db.Close()
	ctx, cancel := context.WithTimeout(context.Background(), queuePoll*5/2) // three rounds
	defer cancel()
	q.Run(ctx)
	if n := strings.Count(logs.String(), "delivery round failed"); n != 1 {
		t.Errorf("three failed rounds logged %d lines, want 1:\n%s", n, logs.String())
	}
}
