package changefeed_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/latchkey/latchkey/internal/changefeed"
	"github.com/latchkey/latchkey/internal/store"
	"github.com/latchkey/latchkey/internal/store/storetest"
)

// freshWithin runs f.Fresh(ctx) and returns its error, failing the test
// when it takes longer than limit (the goroutine is left to the proxy's
// cleanup, which cuts its connection).
func freshWithin(t *testing.T, ctx context.Context, f *changefeed.Feed, limit time.Duration) <-chan error {
	t.Helper()
	out := make(chan error, 1)
	go func() {
		done := make(chan error, 1)
		go func() { done <- f.Fresh(ctx) }()
		select {
		case err := <-done:
			out <- err
		case <-time.After(limit):
			out <- errors.New("Fresh still waiting after " + limit.String())
		}
	}()
	return out
}

// A replica cut off from PostgreSQL by a silent partition (the proxy
// accepts and reads but never answers) answers Fresh within about
// SyncTimeout with store.ErrUnavailable: a sync used to wait on its
// socket for as long as the kernel retransmits (about 15 minutes), and
// every caller queued behind it on a mutex that ignored their contexts.
// A caller whose context ends leaves the queue at once, and callers
// queued behind a sync that found the database silent take its answer
// instead of each waiting a SyncTimeout of its own.
func TestFreshEndsWhenTheDatabaseDoesNotAnswer(t *testing.T) {
	a, _, p := storetest.PairThrough(t)
	f, _, clk := fakedFeed(t, a)
	ctx := context.Background()

	p.BlackHole()
	clk.Advance(changefeed.MaxLag) // Fresh must sync
	start := time.Now()
	first := freshWithin(t, ctx, f, 3*changefeed.SyncTimeout)
	time.Sleep(100 * time.Millisecond) // first holds the sync

	short, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
	defer cancel()
	if err := <-freshWithin(t, short, f, changefeed.SyncTimeout/2); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("a caller whose context ended while a sync held the feed: %v, want its context's error at once", err)
	}
	if err := <-first; !errors.Is(err, store.ErrUnavailable) {
		t.Fatalf("Fresh during a partition: %v, want store.ErrUnavailable", err)
	}
	if d := time.Since(start); d > 2*changefeed.SyncTimeout {
		t.Fatalf("Fresh during a partition took %s", d)
	}

	// Five callers at once: one syncs, the others take its answer.
	clk.Advance(time.Millisecond)
	start = time.Now()
	var waits []<-chan error
	for range 5 {
		waits = append(waits, freshWithin(t, ctx, f, 5*changefeed.SyncTimeout))
	}
	for _, w := range waits {
		if err := <-w; !errors.Is(err, store.ErrUnavailable) {
			t.Fatalf("Fresh during a partition: %v, want store.ErrUnavailable", err)
		}
	}
	if d := time.Since(start); d > 2*changefeed.SyncTimeout+500*time.Millisecond {
		t.Fatalf("five callers during a partition took %s: they ran a sync each", d)
	}

	// Once the database answers again, so does the feed.
	p.Pass()
	clk.Advance(time.Millisecond)
	if err := <-freshWithin(t, ctx, f, 3*changefeed.SyncTimeout); err != nil {
		t.Fatalf("Fresh after the partition: %v", err)
	}
}
