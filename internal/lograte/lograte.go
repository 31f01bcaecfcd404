// Package lograte keeps a background loop that fails on every round (the
// database unreachable for an hour, polled every second) from writing a
// line a round: the first failure is logged, then at most one an Every,
// with how many were left out since.
package lograte

import (
	"sync"
	"time"
)

// Limiter decides which of a stream of failures to log. Its zero value
// is not usable: set Every.
type Limiter struct {
	Every time.Duration

	mu     sync.Mutex
	last   time.Time // when a failure was last logged; zero: never
	missed int       // failures not logged since
}

// Allow reports whether a failure at now is to be logged, and how many
// were not since the last one that was.
func (l *Limiter) Allow(now time.Time) (ok bool, missed int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.last.IsZero() && now.Sub(l.last) < l.Every {
		l.missed++
		return false, 0
	}
	missed, l.last, l.missed = l.missed, now, 0
	return true, missed
}
