package changefeed

import "time"

// SetMaxHoles lowers the bound of watched holes, so a test reaches it with
// a few rolled-back writes instead of thousands.
func SetMaxHoles(f *Feed, n int) {
	f.mu.Lock()
	f.maxHoles = n
	f.mu.Unlock()
}

// Holes returns how many runs of missing ids f watches.
func Holes(f *Feed) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.holes)
}

// SetClock replaces f's wall clock, so a test can let GapWait or MaxLag
// pass without waiting. Call it before f's first Sync.
func SetClock(f *Feed, now func() time.Time) {
	f.mu.Lock()
	f.now = now
	f.mu.Unlock()
}
