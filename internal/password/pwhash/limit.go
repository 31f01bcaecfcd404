package pwhash

import (
	"context"
	"fmt"
	"runtime"
	"sync/atomic"

	"golang.org/x/sync/semaphore"

	"github.com/latchkey/latchkey/internal/apierr"
)

// Every Hash and Verify first takes a slot from one limiter for the whole
// process, sized to its CPUs (GOMAXPROCS at start), because:
//
//   - memory stays bounded under a login storm: an argon2id hash at the
//     OWASP cost allocates 19 MiB (an imported hash up to 256 MiB, or 1
//     GiB if imported before that bound), so hashes running for every
//     open request are an out-of-memory vector; with the limiter the
//     hashing memory is at most one hash per CPU;
//   - throughput goes up, not down: argon2 is memory-bound, and more hashes
//     than cores only take turns on them, each evicting the others' blocks
//     from the CPU caches and raising the heap (and so the GC's work) by
//     19 MiB apiece. A request waits for a slot instead, costing nothing.
//
// Waiting honours the request's context: when the client is gone or its
// deadline passes first, the hash is never computed and the caller gets
// too_many_requests (the server was too busy hashing to answer in time).
// The limiter is process-wide rather than injected because every caller
// shares the same cores: two limiters would allow twice the work.
var slots = newLimiter(runtime.GOMAXPROCS(0))

// limiter is a weighted semaphore that counts its waiters (for tests and
// diagnostics).
type limiter struct {
	sem     *semaphore.Weighted
	size    int64
	waiting atomic.Int64
}

func newLimiter(size int) *limiter {
	size = max(size, 1)
	return &limiter{sem: semaphore.NewWeighted(int64(size)), size: int64(size)}
}

// do runs work once weight slots are free. weight is the number of
// threads the work keeps busy (an argon2 hash's lanes), capped at the
// limiter's size so that a wide imported hash still runs, alone.
func (l *limiter) do(ctx context.Context, weight int, work func()) error {
	w := min(max(int64(weight), 1), l.size)
	l.waiting.Add(1)
	err := l.sem.Acquire(ctx, w)
	l.waiting.Add(-1)
	if err != nil {
		return apierr.Wrap(apierr.TooManyRequests, fmt.Errorf("pwhash: waiting for a hashing slot: %w", err)).
			WithMessage("The server is busy checking other passwords. Please try again in a moment.")
	}
	defer l.sem.Release(w)
	work()
	return nil
}
