package signslot

import (
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

func TestSizeLeavesACore(t *testing.T) {
	for procs, want := range map[int]int{1: 1, 2: 1, 4: 3, 16: 15} {
		if got := size(procs); got != want {
			t.Errorf("size(%d) = %d, want %d", procs, got, want)
		}
	}
}

// However many goroutines sign, no more than the slots run at once, and
// every one of them runs.
func TestDoBoundsConcurrentSignatures(t *testing.T) {
	var running, most, done atomic.Int32
	var wg sync.WaitGroup
	for range 20 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			err := do(func() error {
				n := running.Add(1)
				for {
					m := most.Load()
					if n <= m || most.CompareAndSwap(m, n) {
						break
					}
				}
				time.Sleep(2 * time.Millisecond)
				running.Add(-1)
				done.Add(1)
				return nil
			})
			if err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	if got := int(most.Load()); got > cap(slots) || got < 1 {
		t.Fatalf("%d signatures ran at once, the bound is %d", got, cap(slots))
	}
	if done.Load() != 20 {
		t.Fatalf("%d of 20 signatures ran", done.Load())
	}
}
