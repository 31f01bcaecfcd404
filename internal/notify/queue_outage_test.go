package notify

import (
	"context"
	"log/slog"
	"regexp"
	"strings"
	"testing"
	"time"

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

// The once-a-minute limit reads the queue's clock, as every time in the
// queue does: once that clock has moved a minute on, the next failed
// round is logged again, however little real time has passed. (It read
// the wall clock, so a test clock could not drive it.)
func TestQueueOutageLogLimitUsesTheQueuesClock(t *testing.T) {
	t.Parallel()
	db := storetest.SQLite(t)
	logs := &syncbuf.Buffer{}
	fake := clock.NewFake(time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC))
	q := NewQueue(db, fake, testBox(t), nil, slog.New(slog.NewTextHandler(logs, nil)))
	db.Close()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { q.Run(ctx); close(done) }()
	defer func() { cancel(); <-done }()
	lines := func() int { return strings.Count(logs.String(), "delivery round failed") }
	waitFor := func(n int) {
		t.Helper()
		for deadline := time.Now().Add(5 * time.Second); lines() < n; {
			if time.Now().After(deadline) {
				t.Fatalf("%d lines logged, want %d:\n%s", lines(), n, logs.String())
			}
			q.poke() // a round now rather than at the next poll
			time.Sleep(10 * time.Millisecond)
		}
	}
	waitFor(1)
	// Rounds keep failing while the clock stands still: not logged.
	for range 5 {
		q.poke()
		time.Sleep(20 * time.Millisecond)
	}
	if n := lines(); n != 1 {
		t.Fatalf("rounds within the minute logged %d lines, want 1:\n%s", n, logs.String())
	}
	fake.Advance(time.Minute)
	waitFor(2)
	if !regexp.MustCompile(`failures_not_logged=[1-9]`).MatchString(logs.String()) {
		t.Fatalf("the second line does not count the rounds left out:\n%s", logs.String())
	}
}
