// Package gctune gives the garbage collector a heap floor while the
// server is busy.
//
// Go's default (GOGC=100) collects whenever the heap has doubled since the
// last collection. Latchkey's live heap is small (about 10 MiB), so under
// load, at some 20,000 session checks a second, the collector ran many
// times a second and took about a fifth of the CPU of a check. A larger
// GOGC fixes that but multiplies a large live heap too: during a login
// storm two argon2 buffers of 19 MiB are live, and a fixed GOGC of 800
// would let the heap reach hundreds of MiB.
//
// The tuner instead sets GOGC after every collection so that the next one
// comes when the heap reaches the floor (or twice the live heap, whichever
// is more), and only while collections come less than a second apart. A server
// with no collection for ten seconds goes back to GOGC=100, and the
// scavenger returns the memory above it to the system: under load the
// process holds about the floor more (measured: ~110 MiB RSS instead of
// ~33 MiB at 13k requests a second), some 20 s after the load stops it is
// under 50 MiB, and near 34 MiB after the runtime's next forced collection.
// A GOGC set in the environment is the operator's choice and is left
// alone; a GOMEMLIMIT still bounds the heap as usual.
package gctune

import (
	"context"
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"
	"time"
)

// The floor itself is configuration (config.GCFloorMiB, 64 MiB by
// default); busy means collections under a second apart.
const (
	defaultBusy = time.Second
	// maxPercent caps GOGC for a tiny live heap, so a heap that is
	// mostly garbage is still collected now and then.
	maxPercent = 2000
)

// nextPercent is the GOGC for the next cycle: the floor over the live heap
// while busy, never below Go's default.
func nextPercent(floor, live uint64, busy bool) int {
	if !busy || live == 0 || floor <= 2*live {
		return 100
	}
	return int(min(floor*100/live-100, maxPercent))
}

// tuner is the process's one tuner (GOGC is process-wide).
type tuner struct {
	floor   uint64
	busy    time.Duration
	now     func() time.Time
	setGC   func(int) int
	live    func() uint64
	mu      sync.Mutex
	stopped bool
	lastGC  time.Time
	percent int
}

var (
	runningMu sync.Mutex
	running   bool
)

// Start tunes GOGC until ctx ends (then GOGC is back to 100). It does
// nothing when floor is 0, when GOGC is set in the environment, or when a
// tuner already runs in this process.
func Start(ctx context.Context, floor uint64) {
	if floor == 0 || os.Getenv("GOGC") != "" {
		return
	}
	runningMu.Lock()
	defer runningMu.Unlock()
	if running {
		return
	}
	running = true
	t := &tuner{floor: floor, busy: defaultBusy, now: time.Now, setGC: debug.SetGCPercent, live: liveHeap, percent: 100}
	t.arm()
	go t.watchIdle(ctx, idleAfter)
	context.AfterFunc(ctx, func() {
		t.mu.Lock()
		t.stopped = true
		if t.percent != 100 {
			t.setGC(100)
		}
		t.mu.Unlock()
		runningMu.Lock()
		running = false
		runningMu.Unlock()
	})
}

// idleAfter is how long without a collection ends a busy spell. Without
// this, a server whose load stopped would keep the floor's heap until the
// runtime's forced collection two minutes later.
const idleAfter = 10 * time.Second

// watchIdle puts GOGC back to 100 once no collection has come for
// idleAfter: the next small allocation (the change feed polls every
// 200 ms) then starts a collection against the lower goal, and the
// scavenger returns the memory above it.
func (t *tuner) watchIdle(ctx context.Context, every time.Duration) {
	tick := time.NewTicker(every)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
			t.idleCheck()
		}
	}
}

// idleCheck is one look of watchIdle.
func (t *tuner) idleCheck() {
	t.mu.Lock()
	defer t.mu.Unlock()
	if !t.stopped && t.percent != 100 && t.now().Sub(t.lastGC) >= idleAfter {
		t.setGC(100)
		t.percent = 100
	}
}

// active reports whether a tuner runs in this process.
func active() bool {
	runningMu.Lock()
	defer runningMu.Unlock()
	return running
}

// sentinel is garbage whose finalizer runs once per collection: the
// runtime has no hook after a cycle, and a finalizer runs after the
// collection that found its object unreachable. It holds a pointer so the
// tiny allocator never batches it with other objects.
type sentinel struct{ t *tuner }

func (t *tuner) arm() {
	runtime.SetFinalizer(&sentinel{t: t}, func(s *sentinel) {
		if s.t.afterGC() {
			s.t.arm()
		}
	})
}

// afterGC sets GOGC for the next cycle and reports whether to keep going.
func (t *tuner) afterGC() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.stopped {
		return false
	}
	now := t.now()
	busy := !t.lastGC.IsZero() && now.Sub(t.lastGC) < t.busy
	t.lastGC = now
	// Small swings of the live heap are not worth a change (each takes
	// the runtime's heap lock); a return to 100 always is.
	if p := nextPercent(t.floor, t.live(), busy); p != t.percent && (p == 100 || 10*absDiff(p, t.percent) > t.percent) {
		t.setGC(p)
		t.percent = p
	}
	return true
}

func absDiff(a, b int) int {
	if a > b {
		return a - b
	}
	return b - a
}

// liveHeap is the heap the last collection found live (marked).
func liveHeap() uint64 {
	s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return s[0].Value.Uint64()
}
