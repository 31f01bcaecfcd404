package changefeed

import (
	"context"
	"testing"
	"time"
)

// The watchdog bounds each statement, not the sync: kicked before each
// one, a sync longer than d in all runs on; left alone for d, it fires,
// cancels its context, and no later kick revives it.
func TestWatchdogBoundsEachStatement(t *testing.T) {
	t.Parallel()
	const d = 100 * time.Millisecond
	ctx, w := newWatchdog(context.Background(), d)
	defer w.stop()
	for range 5 {
		time.Sleep(d / 2)
		w.kick()
	}
	if ctx.Err() != nil || w.fired.Load() {
		t.Fatal("fired although kicked within d each time")
	}
	select {
	case <-ctx.Done():
	case <-time.After(10 * d):
		t.Fatal("did not fire after d without a kick")
	}
	w.kick()
	if ctx.Err() == nil || !w.fired.Load() {
		t.Fatal("a kick revived a fired watchdog")
	}
}
