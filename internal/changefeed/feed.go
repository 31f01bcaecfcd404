package changefeed

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/latchkey/latchkey/internal/lograte"
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
// fake in tests. (This package's tests fake the wall clock too, to let
// GapWait pass without waiting for it.)
const (
	// Interval is how often Run polls: a change on another process reaches
	// this one's caches within about Interval.
	Interval = 200 * time.Millisecond
	// MaxLag is how stale Fresh lets the feed get before it syncs on the
	// request path itself, so the 1 s promise holds even if Run is starved
	// or not running (tools and tests that never call Start).
	MaxLag = 500 * time.Millisecond
	// GapWait is how long, on PostgreSQL, ids below the cursor that have
	// not appeared are watched (the feed's holes): ids are allocated at
	// insert time but become visible at commit, so a slow transaction's
	// change can appear after newer ones. Longer gaps are taken for
	// rolled-back inserts; a transaction slower than this is left to the
	// caches' one-minute expiry. It is also how long the feed may go
	// without a successful sync before it stops vouching for the caches:
	// the sync that ends a longer stall drops everything (syncLocked).
	GapWait = 30 * time.Second
	// Keep is how long change rows are kept before Sweep deletes them.
	Keep = time.Hour
	// SyncTimeout bounds each statement of a sync, Run's and the request
	// path's: a sync whose database gives no answer to one of its
	// statements for this long fails with store.ErrUnavailable. Without a
	// deadline a sync sent into a partition waited on its socket for as
	// long as the kernel retransmits (about 15 minutes), with every
	// request of the process queued behind it. It bounds each statement,
	// not the whole sync: a catch-up over many batches (a SCIM bulk sync,
	// a large organization deleted) makes progress and is not an outage,
	// and failing it would fail every request queued behind it.
	SyncTimeout = time.Second
	// PoolWait bounds a sync's wait for a read connection, which is not
	// counted in SyncTimeout: a pool kept busy by slow reads is a loaded
	// database, not a silent one, and its requests waited for their
	// answer before. A wait this long is an outage all the same (every
	// connection stuck on a silent socket).
	PoolWait = 5 * time.Second
	// sweepTimeout bounds a Sweep, so a sweep sent into a partition does
	// not stop Run's polls for good.
	sweepTimeout = time.Minute
)

// Feed reads the changes table and dispatches events to subscribers.
type Feed struct {
	db  *store.DB
	log *slog.Logger
	now func() time.Time // the wall clock of the timing constants: time.Now, or a test's fake

	// sem holds the right to sync: one Sync at a time. A channel, not a
	// mutex, so that a caller whose context ends while a sync holds it
	// leaves the queue (a request whose client gave up, or that ran out
	// of time) instead of waiting for that sync, however long it takes.
	sem chan struct{}
	// failedAt (unix nanos) is when the last sync that failed for the
	// database's sake (not its caller's) began, and failErr its error;
	// both are guarded by sem. A caller that asked before that sync began
	// takes its answer rather than send one more query into an outage.
	failedAt int64
	failErr  error
	// q is the read connection of the sync under way and dog its
	// statements' deadline (syncOn); both held with sem.
	q   store.Querier
	dog *watchdog

	started  atomic.Bool
	cursor   int64
	holes    []hole // PostgreSQL: ids below cursor not seen yet, ascending
	maxHoles int    // bound of len(holes): maxHoles, less in tests

	writesSeen atomic.Uint64 // db.Writes() when the last Sync began
	lastSync   atomic.Int64  // unix nanos when the last successful Sync began

	subMu sync.RWMutex
	subs  []func(Event)
}

// hole is a run of ids, lo through hi, that were not visible when the feed
// passed them: on PostgreSQL a transaction still in flight (or one that
// rolled back) holds them. Each poll reads the rows that have appeared in
// the holes, delivers them and takes their ids out, so a late row is
// delivered once.
//
// One mechanism serves the few ids out-of-order commits skip, a long run
// skipped while a big transaction (thousands of change rows) is in
// flight, and the ids of transactions in flight when the feed starts. A
// run costs one entry whatever its length, where a set of single ids
// costs one per id and could not afford a run of 10,000 (so such runs used
// to be skipped unwatched). And a poll reads only rows inside holes (one
// index range scan each, empty unless something committed there), where
// re-reading everything from the lowest gap read every row above it again
// on every poll until the gap expired.
type hole struct {
	lo, hi int64
	since  time.Time // when the feed first missed these ids
}

// New returns a feed on db; it reads nothing until the first Sync.
func New(db *store.DB, log *slog.Logger) *Feed {
	if log == nil {
		log = slog.Default()
	}
	return &Feed{db: db, log: log, now: time.Now, maxHoles: maxHoles, sem: make(chan struct{}, 1)}
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
// its next read), or when the last sync began more than MaxLag before this
// call. Otherwise it costs two atomic loads and a clock read.
//
// On its turn it fails once the database leaves a statement of the sync
// unanswered for SyncTimeout (or the read pool full for PoolWait), or when
// ctx ends: an error wrapping store.ErrUnavailable means the database did
// not answer in time, and a caller should fail rather than read around the caches
// (that read would wait as long); another error (a connection cut, say)
// leaves the caller to read from the database itself.
func (f *Feed) Fresh(ctx context.Context) error {
	w, asked := f.db.Writes(), f.now()
	if f.covers(w, asked) {
		return nil
	}
	if err := f.lock(ctx); err != nil {
		return err
	}
	defer f.unlock()
	// Another caller synced while this one waited. Judged against when
	// this caller asked, not now: a sync that began since then saw
	// everything this caller needs, however long it took, and judging by
	// now would make every waiter behind a slow sync run one of its own.
	if f.covers(w, asked) {
		return nil
	}
	// Likewise a sync that began since then and found the database not
	// answering answers this caller too: queued behind it, each waiter
	// running its own would keep the last of them for SyncTimeout times
	// the queue's length.
	if f.failErr != nil && f.failedAt >= asked.UnixNano() {
		return f.failErr
	}
	return f.syncLocked(ctx)
}

// Usable is Fresh for a cache about to answer: true when cached answers
// may be used, false when the caller must read the database itself (the
// sync failed otherwise: a connection cut, its own context ended), and an
// error when the database did not answer in time. The caller fails then
// rather than read around its cache: that read would wait on the same
// silent database, and the request with it, for as long as the outage.
func (f *Feed) Usable(ctx context.Context) (bool, error) {
	err := f.Fresh(ctx)
	if errors.Is(err, store.ErrUnavailable) {
		return false, err
	}
	return err == nil, nil
}

// lock takes sem, or gives up when ctx ends first.
func (f *Feed) lock(ctx context.Context) error {
	select {
	case f.sem <- struct{}{}:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("changefeed: waiting for a sync: %w", ctx.Err())
	}
}

func (f *Feed) unlock() { <-f.sem }

// readConn reserves a read connection for a sync. Getting one may mean
// waiting for the pool and, on PostgreSQL, the driver's ping of an idle
// connection: a ping unanswered for SyncTimeout is an outage, a pool
// still full then is load, waited for up to PoolWait in all.
func (f *Feed) readConn(ctx context.Context) (*sql.Conn, error) {
	start := time.Now()
	for {
		wait := SyncTimeout
		if f.db.ReadPoolBusy() {
			wait = PoolWait - time.Since(start)
		}
		cctx, cancel := context.WithTimeout(ctx, max(wait, 0))
		conn, err := f.db.ReadConn(cctx)
		timedOut := cctx.Err() != nil && ctx.Err() == nil
		cancel()
		switch {
		case err == nil:
			return conn, nil
		case !timedOut:
			return nil, err
		case f.db.ReadPoolBusy() && time.Since(start) < PoolWait:
			continue // the pool filled up meanwhile: load, wait on
		}
		return nil, fmt.Errorf("changefeed: sync: no read connection within %s: %w",
			time.Since(start).Round(time.Millisecond), errors.Join(store.ErrUnavailable, err))
	}
}

// covers reports whether the last sync began after w writes and less than
// MaxLag before at. Every change committed before a sync began is visible
// to its reads, so that start, not its end, is how old the caches' view
// of the database is: stamped at its end, a sync slow to read stretched
// the staleness Fresh bounds by its own length.
func (f *Feed) covers(w uint64, at time.Time) bool {
	return f.started.Load() && f.writesSeen.Load() >= w && at.Sub(time.Unix(0, f.lastSync.Load())) < MaxLag
}

// Sync reads every change after the cursor and dispatches it.
func (f *Feed) Sync(ctx context.Context) error {
	if err := f.lock(ctx); err != nil {
		return err
	}
	defer f.unlock()
	return f.syncLocked(ctx)
}

// syncLocked runs one sync on one read connection (waited for up to
// PoolWait), each statement under SyncTimeout (f.dog). A failure that is
// not its caller's (ctx still live) is kept for the callers queued behind
// it (Fresh); one that ran out of either wraps store.ErrUnavailable.
func (f *Feed) syncLocked(ctx context.Context) error {
	began := f.now()
	err := f.syncOn(ctx, began)
	if err != nil && ctx.Err() == nil {
		f.failedAt, f.failErr = began.UnixNano(), err
	}
	return err
}

func (f *Feed) syncOn(ctx context.Context, began time.Time) error {
	conn, err := f.readConn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	sctx, dog := newWatchdog(ctx, SyncTimeout)
	defer dog.stop()
	f.q, f.dog = conn, dog
	defer func() { f.q, f.dog = nil, nil }()
	err = f.syncOnce(sctx, began)
	if err != nil && ctx.Err() == nil && dog.fired.Load() {
		err = fmt.Errorf("changefeed: sync: no answer within %s: %w", SyncTimeout, errors.Join(store.ErrUnavailable, err))
	}
	return err
}

func (f *Feed) syncOnce(ctx context.Context, began time.Time) error {
	writes := f.db.Writes()
	if !f.started.Load() {
		if err := f.start(ctx, began); err != nil {
			return err
		}
		f.started.Store(true)
		f.Invalidate(Event{})
	} else {
		stalled := began.Sub(time.Unix(0, f.lastSync.Load())) > GapWait
		if err := f.read(ctx, began); err != nil {
			return err
		}
		if stalled {
			// Not one sync succeeded for longer than holes are watched (the
			// database unreachable, the process paused): reading the holes
			// first delivered what committed into them, but the feed no
			// longer vouches for everything it missed (another process's
			// Sweep may have deleted change rows not read yet, after
			// Keep), so the entries cached before the stall are dropped,
			// as bound does when it gives holes up. A stall is rare and
			// the reload cheap.
			f.log.Warn("change feed: no sync for longer than the gap wait; dropping every cached entry",
				"since", time.Unix(0, f.lastSync.Load()))
			f.Invalidate(Event{})
		}
	}
	f.writesSeen.Store(writes)
	f.lastSync.Store(began.UnixNano())
	return nil
}

const (
	// batch is how many change rows one query reads.
	batch = 5000
	// maxHoles bounds the holes watched at once. Out-of-order commits fill
	// theirs within milliseconds and a big transaction's ids are one hole,
	// so only thousands of rolled-back watched writes within GapWait
	// reach it.
	maxHoles = 10000
	// holesPerRead bounds the holes one query reads. The planner expects
	// up to a batch of rows from each hole, so a query over a few hundred
	// holes looks costly enough to be JIT-compiled (~20 ms measured for
	// what is an empty index probe per hole); 64 keeps the estimate under
	// PostgreSQL's default jit_above_cost.
	holesPerRead = 64
)

// start places the cursor at the newest change; the reset that follows
// covers everything visible. On PostgreSQL, ids below the cursor that are
// not visible yet may belong to transactions still in flight (ids are
// allocated at insert, visible at commit), so the recent ones become holes
// and are delivered when they commit.
func (f *Feed) start(ctx context.Context, now time.Time) error {
	var cursor int64
	f.dog.kick()
	if err := f.q.QueryRowContext(ctx, `SELECT COALESCE(MAX(id), 0) FROM changes`).Scan(&cursor); err != nil {
		return fmt.Errorf("changefeed: start: %w", err)
	}
	var holes []hole
	if f.db.Dialect() == store.Postgres && cursor > 0 {
		var err error
		if holes, err = f.startHoles(ctx, cursor, now); err != nil {
			return err
		}
	}
	f.cursor, f.holes = cursor, holes
	return nil
}

// startHoles finds the runs of missing ids up to cursor among the ids
// allocated within the last GapWait. Older ones would be given up at once
// (as on a running feed), and bounding the scan keeps a start cheap when
// the table holds an hour of changes. A row's `at` is the database's clock
// when its id was allocated, so every id allocated since the cutoff is
// above the last row stamped before it; the database's clock is used for
// the cutoff too, so a skewed host clock cannot move it. The newest
// maxHoles are kept; the start's reset already covers what is visible.
func (f *Feed) startHoles(ctx context.Context, cursor int64, now time.Time) ([]hole, error) {
	f.dog.kick()
	rows, err := f.q.QueryContext(ctx, `WITH since AS (
			SELECT COALESCE((SELECT id FROM changes
				WHERE at < `+pgNowMillis+` - $2
				ORDER BY at DESC LIMIT 1), 0) AS id
		)
		SELECT prev + 1, id - 1 FROM (
			SELECT c.id, LAG(c.id, 1, since.id) OVER (ORDER BY c.id) AS prev
			FROM changes c, since WHERE c.id > since.id AND c.id <= $1
		) s WHERE id > prev + 1 ORDER BY id DESC LIMIT $3`, cursor, GapWait.Milliseconds(), f.maxHoles)
	if err != nil {
		return nil, fmt.Errorf("changefeed: start: holes: %w", err)
	}
	defer rows.Close()
	var holes []hole
	for rows.Next() {
		h := hole{since: now}
		if err := rows.Scan(&h.lo, &h.hi); err != nil {
			return nil, fmt.Errorf("changefeed: start: scan hole: %w", err)
		}
		holes = append(holes, h)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("changefeed: start: holes: %w", err)
	}
	slices.Reverse(holes)
	return holes, nil
}

// read delivers the rows that appeared in holes, then gives up the holes
// older than GapWait, then delivers the rows after the cursor; now is when
// the sync began. Each query continues from the last id it read, so no
// row is read twice in a sync however many batches it takes, and a row
// delivered in an earlier sync is not read again: it is neither in a hole
// nor after the cursor.
//
// The holes are read before any is given up. Age says how long the feed
// has waited for a hole, not whether its transaction committed: one that
// committed promptly while this process could not poll (the database
// unreachable, the process paused for longer than GapWait) is in its hole
// now, and giving the hole up first threw that change away unread, with
// no reset, so caches kept what it changed. Read first, a hole is given up
// only after one last read of it; what commits into it later is left to
// the caches' one-minute expiry, as GapWait says. Holes the cursor read
// below opens are stamped now and are not given up here.
func (f *Feed) read(ctx context.Context, now time.Time) error {
	if len(f.holes) > 0 {
		if err := f.readHoles(ctx); err != nil {
			return err
		}
	}
	f.holes = slices.DeleteFunc(f.holes, func(h hole) bool { return now.Sub(h.since) > GapWait })
	for {
		n, err := f.each(ctx, `SELECT id, tbl, scope, row_key FROM changes
			WHERE id > $1 ORDER BY id LIMIT `+fmt.Sprint(batch), func(id int64, ev Event) {
			// However many ids this skips (a transaction of thousands of
			// rows still in flight), the skipped run is one hole. SQLite
			// commits in id order, so a skipped id there never appears.
			if id > f.cursor+1 && f.db.Dialect() == store.Postgres {
				f.holes = append(f.holes, hole{lo: f.cursor + 1, hi: id - 1, since: now})
				f.bound()
			}
			f.cursor = id
			f.Invalidate(ev)
		}, f.cursor)
		if err != nil || n < batch {
			return err
		}
	}
}

// readHoles delivers the rows that committed into holes since the last
// read: one index range scan per hole (holes exist only on PostgreSQL,
// hence its array syntax). LATERAL makes the scans per hole; a plain join
// let the planner walk the table from the lowest hole instead.
func (f *Feed) readHoles(ctx context.Context) error {
	// A copy: delivering a row changes f.holes.
	holes := slices.Clone(f.holes)
	for len(holes) > 0 {
		chunk := holes[:min(len(holes), holesPerRead)]
		holes = holes[len(chunk):]
		lo, hi := make([]int64, len(chunk)), make([]int64, len(chunk))
		for i, h := range chunk {
			lo[i], hi[i] = h.lo, h.hi
		}
		// Every row this returns is new: a delivered id leaves its hole,
		// and after moves past it. Holes are disjoint and ascending, so
		// taking the lowest batch of each hole, then the lowest batch of
		// those, reads in id order.
		after := lo[0] - 1
		for {
			n, err := f.each(ctx, `SELECT c.id, c.tbl, c.scope, c.row_key
				FROM unnest($1::bigint[], $2::bigint[]) AS h(lo, hi)
				CROSS JOIN LATERAL (SELECT id, tbl, scope, row_key FROM changes
					WHERE id BETWEEN h.lo AND h.hi AND id > $3 ORDER BY id LIMIT `+fmt.Sprint(batch)+`) c
				ORDER BY c.id LIMIT `+fmt.Sprint(batch), func(id int64, ev Event) {
				after = id
				f.fill(id)
				f.Invalidate(ev)
			}, lo, hi, after)
			if err != nil {
				return err
			}
			if n < batch {
				break
			}
		}
	}
	return nil
}

// each runs a read of change rows, calls fn with each, and returns how
// many there were.
func (f *Feed) each(ctx context.Context, q string, fn func(id int64, ev Event), args ...any) (int, error) {
	f.dog.kick()
	rows, err := f.q.QueryContext(ctx, q, args...)
	if err != nil {
		return 0, fmt.Errorf("changefeed: read: %w", err)
	}
	defer rows.Close()
	n := 0
	for rows.Next() {
		var id int64
		var ev Event
		if err := rows.Scan(&id, &ev.Table, &ev.Scope, &ev.Key); err != nil {
			return n, fmt.Errorf("changefeed: scan: %w", err)
		}
		n++
		fn(id, ev)
		// The watchdog times the database, not the subscribers: a batch
		// whose rows take long to deliver (a cache walking its entries per
		// event) is progress, and failing it failed every request queued
		// behind the sync.
		f.dog.kick()
	}
	if err := rows.Err(); err != nil {
		return n, fmt.Errorf("changefeed: read: %w", err)
	}
	return n, nil
}

// fill takes a delivered id out of its hole.
func (f *Feed) fill(id int64) {
	i, ok := slices.BinarySearchFunc(f.holes, id, func(h hole, id int64) int {
		switch {
		case h.hi < id:
			return -1
		case h.lo > id:
			return 1
		}
		return 0
	})
	if !ok {
		return // its hole was given up during this read
	}
	switch h := &f.holes[i]; {
	case h.lo == h.hi:
		f.holes = slices.Delete(f.holes, i, i+1)
	case id == h.lo: // a transaction's rows arrive in id order: the usual case
		h.lo++
	case id == h.hi:
		h.hi--
	default:
		upper := hole{lo: id + 1, hi: h.hi, since: h.since}
		h.hi = id - 1
		f.holes = slices.Insert(f.holes, i+1, upper)
		f.bound()
	}
}

// bound keeps the holes within maxHoles by giving up the older half: the
// lowest ids, allocated first, so the likeliest to have rolled back.
// Halving rather than dropping one keeps this rare when something rolls
// back watched writes thousands of times within GapWait. What committed
// into the dropped holes since they were last read is covered by dropping
// everything cached; what commits into them later is not delivered, and
// the caches' one-minute expiry is the backstop, as for a transaction
// slower than GapWait.
func (f *Feed) bound() {
	if len(f.holes) <= f.maxHoles {
		return
	}
	drop := len(f.holes) - f.maxHoles/2
	f.log.Warn("change feed: too many uncommitted ids to watch; giving up the oldest", "holes", len(f.holes), "dropped", drop)
	f.holes = slices.Delete(f.holes, 0, drop)
	f.Invalidate(Event{})
}

// Sweep deletes change rows older than Keep. The cutoff is the
// database's clock less Keep, computed in SQL: at is the database's clock
// when the row was written (nowMillis), and on PostgreSQL that is another
// machine's clock than this process's: a host clock ahead of it deleted
// rows younger than Keep (an hour ahead: rows no feed had read yet), one
// behind kept them longer.
func (f *Feed) Sweep(ctx context.Context) error {
	if _, err := f.db.ExecContext(ctx, `DELETE FROM changes WHERE at < `+nowMillis(f.db.Dialect())+` - $1`,
		Keep.Milliseconds()); err != nil {
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
	fails := lograte.Limiter{Every: time.Minute}
	for {
		select {
		case <-ctx.Done():
			return
		case <-poll.C:
			if err := f.Sync(ctx); err != nil && ctx.Err() == nil {
				if ok, missed := fails.Allow(f.now()); ok {
					f.log.Warn("change feed poll failed; caches sync on the request path until it recovers",
						"error", err, "failures_not_logged", missed)
				}
			}
		case <-sweep.C:
			sctx, cancel := context.WithTimeout(ctx, sweepTimeout)
			err := f.Sweep(sctx)
			cancel()
			if err != nil && ctx.Err() == nil {
				f.log.Warn("change feed sweep failed", "error", err)
			}
		}
	}
}
