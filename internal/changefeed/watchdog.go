package changefeed

import (
	"context"
	"sync/atomic"
	"time"
)

// watchdog cancels a sync whose database has not answered for d: kick
// re-arms it as each statement starts, so the bound is per statement,
// never the sync's whole length (SyncTimeout says why). Its timer runs on
// wall time, as the feed's pacing does.
type watchdog struct {
	d     time.Duration
	t     *time.Timer
	fired atomic.Bool
	stop  func()
}

// newWatchdog returns a context that ends with ctx or when the watchdog
// fires, and the watchdog, armed for d. stop releases both.
func newWatchdog(ctx context.Context, d time.Duration) (context.Context, *watchdog) {
	ctx, cancel := context.WithCancel(ctx)
	w := &watchdog{d: d}
	w.t = time.AfterFunc(d, func() {
		w.fired.Store(true)
		cancel()
	})
	w.stop = func() {
		w.t.Stop()
		cancel()
	}
	return ctx, w
}

// kick gives the next statement the whole of d. Once fired, the context
// stays cancelled: a kick does not revive a sync that already failed.
func (w *watchdog) kick() { w.t.Reset(w.d) }
