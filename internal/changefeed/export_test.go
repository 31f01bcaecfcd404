package changefeed

import "time"

// SetMaxHoles lowers the bound of watched holes, so a test reaches it with
// a few rolled-back writes instead of thousands.
func SetMaxHoles(f *Feed, n int) {
	f.sem <- struct{}{}
	f.maxHoles = n
	<-f.sem
}

// Holes returns how many runs of missing ids f watches.
func Holes(f *Feed) int {
	f.sem <- struct{}{}
	defer f.unlock()
	return len(f.holes)
}

// SetClock replaces f's wall clock, so a test can let GapWait or MaxLag
// pass without waiting. Call it before f's first Sync.
func SetClock(f *Feed, now func() time.Time) {
	f.sem <- struct{}{}
	f.now = now
	<-f.sem
}

// SetGuardClock replaces g's wall clock and the period of its Run, so a
// test can let its failure lines' minute pass without waiting, and see
// rounds every few milliseconds. Call it before g.Run.
func SetGuardClock(g *Guard, now func() time.Time, every time.Duration) {
	g.now, g.every = now, every
}
