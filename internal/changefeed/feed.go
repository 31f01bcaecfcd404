package changefeed

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/latchkey/latchkey/internal/store"
)

// Event is one changed row as a cache sees it. The zero Scope means
// "anything may have changed": drop everything (sent when the feed starts
// and when it cannot vouch for what it missed).
type Event struct {
	Table string
	Scope Scope
	Key   string
}

// All reports whether the event asks to drop everything.
func (e Event) All() bool { return e.Scope == "" }

// Timing of the feed. They use wall time, not the app's clock: they pace
// real polling and compare with the times the database's triggers write,
// while the app's clock is what domain rules (expiry) are judged by and is
// fake in tests.
const (
	// Interval is how often Run polls: a change on another process reaches
	// this one's caches within about Interval.
	Interval = 200 * time.Millisecond
	// MaxLag is how stale Fresh lets the feed get before it syncs on the
	// request path itself, so the 1 s promise holds even if Run is starved
	// or not running (tools and tests that never call Start).
	MaxLag = 500 * time.Millisecond
	// GapWait is how long, on PostgreSQL, an id below the cursor that has
	// not appeared is re-read: ids are allocated at insert time but become
	// visible at commit, so a slow transaction's change can appear after
	// newer ones. Longer gaps are rolled-back inserts.
	GapWait = 30 * time.Second
	// Keep is how long change rows are kept before Sweep deletes them.
	Keep = time.Hour
)

// Feed reads the changes table and dispatches events to subscribers.
type Feed struct {
	db  *store.DB
	log *slog.Logger

	mu      sync.Mutex // one Sync at a time
	started atomic.Bool
	cursor  int64
	gaps    map[int64]time.Time // PostgreSQL: ids below cursor not seen yet

	writesSeen atomic.Uint64 // db.Writes() when the last Sync began
	lastSync   atomic.Int64  // unix nanos of the last successful Sync

	subMu sync.RWMutex
	subs  []func(Event)
}

// New returns a feed on db; it reads nothing until the first Sync.
func New(db *store.DB, log *slog.Logger) *Feed {
	if log == nil {
		log = slog.Default()
	}
	return &Feed{db: db, log: log, gaps: map[int64]time.Time{}}
}

// Subscribe adds fn to the receivers of every event. fn runs under the
// feed's lock and must be quick (drop map entries, nothing more).
func (f *Feed) Subscribe(fn func(Event)) {
	f.subMu.Lock()
	f.subs = append(f.subs, fn)
	f.subMu.Unlock()
}

// Invalidate dispatches ev at once. Code that changes a watched row can
// call it so this process drops its copy before the write even commits;
// the trigger's record still reaches every other process.
func (f *Feed) Invalidate(ev Event) {
	f.subMu.RLock()
	defer f.subMu.RUnlock()
	for _, fn := range f.subs {
		fn(ev)
	}
}

// Fresh makes sure cached answers may be used: it syncs when this process
// wrote to the database since the last sync (so its own changes are seen by
// its next read), or when the last sync is older than MaxLag. Otherwise it
// costs two atomic loads and a clock read.
func (f *Feed) Fresh(ctx context.Context) error {
	w := f.db.Writes()
	if f.covers(w) {
		return nil
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.covers(w) { // another caller synced while this one waited
		return nil
	}
	return f.syncLocked(ctx)
}

// covers reports whether the last sync began after w writes and is recent.
func (f *Feed) covers(w uint64) bool {
	return f.started.Load() && f.writesSeen.Load() >= w && time.Since(time.Unix(0, f.lastSync.Load())) < MaxLag
}

// Sync reads every change after the cursor and dispatches it.
func (f *Feed) Sync(ctx context.Context) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.syncLocked(ctx)
}

func (f *Feed) syncLocked(ctx context.Context) error {
	writes := f.db.Writes()
	if !f.started.Load() {
		if err := f.db.Read().QueryRowContext(ctx, `SELECT COALESCE(MAX(id), 0) FROM changes`).Scan(&f.cursor); err != nil {
			return fmt.Errorf("changefeed: start: %w", err)
		}
		f.started.Store(true)
		f.Invalidate(Event{})
	} else if err := f.read(ctx); err != nil {
		return err
	}
	f.writesSeen.Store(writes)
	f.lastSync.Store(time.Now().UnixNano())
	return nil
}

const (
	batch   = 5000
	maxGaps = 10000
)

func (f *Feed) read(ctx context.Context) error {
	for {
		from := f.cursor
		for id := range f.gaps {
			from = min(from, id-1)
		}
		rows, err := f.db.Read().QueryContext(ctx, `SELECT id, tbl, scope, row_key FROM changes
			WHERE id > $1 ORDER BY id LIMIT `+fmt.Sprint(batch), from)
		if err != nil {
			return fmt.Errorf("changefeed: read: %w", err)
		}
		n := 0
		now := time.Now()
		for rows.Next() {
			var id int64
			var ev Event
			if err := rows.Scan(&id, &ev.Table, &ev.Scope, &ev.Key); err != nil {
				rows.Close()
				return fmt.Errorf("changefeed: scan: %w", err)
			}
			n++
			switch {
			case id > f.cursor+maxGaps:
				// Far more ids than any burst of in-flight transactions:
				// the sequence jumped. Nothing below is worth waiting for.
				f.cursor = id
				f.Invalidate(Event{})
				continue
			case id > f.cursor:
				for missing := f.cursor + 1; missing < id && f.db.Dialect() == store.Postgres; missing++ {
					f.gaps[missing] = now
				}
				f.cursor = id
			case f.hasGap(id):
				delete(f.gaps, id)
			default:
				continue // seen in an earlier read of the gap window
			}
			f.Invalidate(ev)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return fmt.Errorf("changefeed: read: %w", err)
		}
		for id, since := range f.gaps {
			if now.Sub(since) > GapWait {
				delete(f.gaps, id)
			}
		}
		if n < batch {
			return nil
		}
	}
}

func (f *Feed) hasGap(id int64) bool { _, ok := f.gaps[id]; return ok }

// Sweep deletes change rows older than Keep.
func (f *Feed) Sweep(ctx context.Context) error {
	cutoff := time.Now().Add(-Keep).UnixMilli()
	if _, err := f.db.ExecContext(ctx, `DELETE FROM changes WHERE at < $1`, cutoff); err != nil {
		return fmt.Errorf("changefeed: sweep: %w", err)
	}
	return nil
}

// Run polls every Interval and sweeps every ten minutes until ctx ends.
func (f *Feed) Run(ctx context.Context) {
	poll := time.NewTicker(Interval)
	defer poll.Stop()
	sweep := time.NewTicker(10 * time.Minute)
	defer sweep.Stop()
	var lastErr time.Time
	for {
		select {
		case <-ctx.Done():
			return
		case <-poll.C:
			if err := f.Sync(ctx); err != nil && ctx.Err() == nil && time.Since(lastErr) > time.Minute {
				lastErr = time.Now()
				f.log.Warn("change feed poll failed; caches sync on the request path until it recovers", "error", err)
			}
		case <-sweep.C:
			if err := f.Sweep(ctx); err != nil && ctx.Err() == nil {
				f.log.Warn("change feed sweep failed", "error", err)
			}
		}
	}
}
