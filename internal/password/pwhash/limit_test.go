package pwhash

import (
	"context"
	"errors"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/latchkey/latchkey/internal/apierr"
)

// TestLimiterBoundsConcurrency runs more work than the limiter has slots,
// each piece blocked until the test lets it go: exactly size pieces may be
// inside at once and the rest must wait. Without the bound every piece
// gets in and the test fails at once; nothing here depends on timing.
func TestLimiterBoundsConcurrency(t *testing.T) {
	const size, n = 2, 6
	l := newLimiter(size)
	gate := make(chan struct{})
	var inside, most, ran atomic.Int64
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for range n {
		wg.Go(func() {
			errs <- l.do(t.Context(), 1, func() {
				now := inside.Add(1)
				for m := most.Load(); now > m && !most.CompareAndSwap(m, now); m = most.Load() {
				}
				<-gate
				inside.Add(-1)
				ran.Add(1)
			})
		})
	}
	for inside.Load() != size || l.waiting.Load() != n-size {
		if in := inside.Load(); in > size {
			close(gate)
			t.Fatalf("%d pieces of work inside a limiter of %d", in, size)
		}
		runtime.Gosched()
	}
	close(gate)
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	if most.Load() != size || ran.Load() != n {
		t.Fatalf("at most %d inside and %d ran; want %d and %d", most.Load(), ran.Load(), size, n)
	}
}

// TestLimiterWeights: work as wide as the limiter takes every slot, and
// wider work is capped to the limiter's size instead of waiting forever.
func TestLimiterWeights(t *testing.T) {
	l := newLimiter(2)
	var during bool
	if err := l.do(t.Context(), 255, func() { during = !l.sem.TryAcquire(1) }); err != nil {
		t.Fatal(err)
	}
	if !during {
		t.Fatal("work of weight 255 left a slot of 2 free")
	}
	if !l.sem.TryAcquire(2) {
		t.Fatal("the slots were not given back")
	}
}

// TestEveryHashWaitsForASlot takes every slot of the process's limiter,
// then starts Hash and Verify of every stored format: each must wait (not
// compute), and a cancelled request must end its wait with
// too_many_requests that still says why.
func TestEveryHashWaitsForASlot(t *testing.T) {
	dummy, err := Dummy(tiny)
	if err != nil {
		t.Fatal(err)
	}
	calls := map[string]func(context.Context) error{
		"hash": func(ctx context.Context) error { _, err := Hash(ctx, "pw", tiny); return err },
		"dummy verify": func(ctx context.Context) error {
			_, err := Verify(ctx, dummy, "pw")
			return err
		},
	}
	for _, v := range vectors {
		calls["verify "+v.name] = func(ctx context.Context) error { _, err := Verify(ctx, v.hash, v.password); return err }
	}
	if err := slots.sem.Acquire(t.Context(), slots.size); err != nil {
		t.Fatal(err)
	}
	defer slots.sem.Release(slots.size)
	for name, call := range calls {
		t.Run(name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(t.Context())
			defer cancel()
			done := make(chan error, 1)
			go func() { done <- call(ctx) }()
			for slots.waiting.Load() != 1 {
				select {
				case err := <-done:
					t.Fatalf("returned %v while every hashing slot was taken", err)
				default:
				}
				runtime.Gosched()
			}
			cancel()
			err := <-done
			if !apierr.Is(err, apierr.TooManyRequests) || !errors.Is(err, context.Canceled) {
				t.Fatalf("cancelled while waiting: %v; want too_many_requests caused by context.Canceled", err)
			}
		})
	}
}
