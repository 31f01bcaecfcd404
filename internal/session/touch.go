package session

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/latchkey/latchkey/internal/lograte"
	"github.com/latchkey/latchkey/internal/store"
)

// toucher coalesces last_accessed_at writes off the request path: checks
// record the time in memory and a background loop writes the newest time
// of every touched session in one short transaction per batch. A session
// checked a thousand times a second costs one UPDATE per flush, and no
// check ever waits on SQLite's single writer.
type toucher struct {
	db      *store.DB
	mu      sync.Mutex
	pending map[string]time.Time // member_session_id -> newest access
}

// touchEvery is how often Run flushes.
const touchEvery = time.Second

// touchBatch bounds one flush transaction, keeping the writer free for
// logins between batches.
const touchBatch = 500

func newToucher(db *store.DB) *toucher {
	return &toucher{db: db, pending: map[string]time.Time{}}
}

func (t *toucher) touch(id string, at time.Time) {
	t.mu.Lock()
	if prev, ok := t.pending[id]; !ok || at.After(prev) {
		t.pending[id] = at
	}
	t.mu.Unlock()
}

// flush writes every pending touch. A touch never moves last_accessed_at
// backwards and never revives a revoked session.
func (t *toucher) flush(ctx context.Context) error {
	t.mu.Lock()
	pending := t.pending
	t.pending = map[string]time.Time{}
	t.mu.Unlock()
	ids := make([]string, 0, len(pending))
	for id := range pending {
		ids = append(ids, id)
	}
	for len(ids) > 0 {
		n := min(len(ids), touchBatch)
		chunk := ids[:n]
		ids = ids[n:]
		err := t.db.Tx(ctx, func(q store.Querier) error {
			for _, id := range chunk {
				at := store.Millis(pending[id])
				if _, err := q.ExecContext(ctx, `UPDATE member_sessions SET last_accessed_at = $1
					WHERE member_session_id = $2 AND revoked_at IS NULL AND last_accessed_at < $1`, at, id); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			// Put the unwritten touches back; a later flush retries them.
			for _, id := range append(chunk, ids...) {
				t.touch(id, pending[id])
			}
			return fmt.Errorf("session: flush last_accessed_at: %w", err)
		}
	}
	return nil
}

// FlushTouches writes pending last_accessed_at updates now (App.Close and
// tests use it; Run does it every second). What it could not write stays
// pending (PendingTouches).
func (s *Service) FlushTouches(ctx context.Context) error { return s.touches.flush(ctx) }

// PendingTouches is how many sessions have a last_accessed_at not
// written yet.
func (s *Service) PendingTouches() int {
	s.touches.mu.Lock()
	defer s.touches.mu.Unlock()
	return len(s.touches.pending)
}

// RunToucher flushes pending touches every second until ctx ends;
// failures are retried at the next tick and go to report, at most once a
// minute (the database unreachable for an hour is one line a minute, not
// one a second), wrapped with how many were not reported since. What is still
// pending when ctx ends is left to FlushTouches: App.Close writes it,
// under a deadline of its own, once every loop has stopped (a last flush
// here, without a deadline, kept a stopping process waiting for ever on
// a database that did not answer).
func (s *Service) RunToucher(ctx context.Context, report func(error)) {
	tick := time.NewTicker(touchEvery)
	defer tick.Stop()
	fails := lograte.Limiter{Every: time.Minute}
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
			if err := s.touches.flush(ctx); err != nil && ctx.Err() == nil {
				if ok, missed := fails.Allow(s.clock.Now()); ok {
					if missed > 0 {
						err = fmt.Errorf("%w (and %d failed flushes not reported since the last)", err, missed)
					}
					report(err)
				}
			}
		}
	}
}
