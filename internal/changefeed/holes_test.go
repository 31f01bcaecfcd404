package changefeed_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/latchkey/latchkey/internal/changefeed"
	"github.com/latchkey/latchkey/internal/store"
	"github.com/latchkey/latchkey/internal/store/storetest"
)

// These tests are about PostgreSQL's holes: ids allocated by transactions
// that have not committed (or never will). Where a test also makes sense
// on SQLite, which commits in id order, it runs on both.

// insertWidgets inserts n widgets named prefix0.. in one statement, which
// records n changes in one transaction, as deleting a big organization's
// members does.
func insertWidgets(t *testing.T, q store.Querier, prefix string, n int) []string {
	t.Helper()
	vals := make([]string, n)
	want := make([]string, n)
	for i := range n {
		vals[i] = fmt.Sprintf("('%s%d', 'o1')", prefix, i)
		want[i] = fmt.Sprintf("widgets:member:%s%d", prefix, i)
	}
	exec(t, q, `INSERT INTO widgets (id, owner) VALUES `+strings.Join(vals, ", "))
	slices.Sort(want)
	return want
}

// rollBack runs a watched insert that rolls back, leaving a hole of one id
// on PostgreSQL that never fills.
func rollBack(t *testing.T, db *store.DB, id string) {
	t.Helper()
	_ = db.Tx(context.Background(), func(q store.Querier) error {
		exec(t, q, `INSERT INTO widgets (id, owner) VALUES ($1, 'o1')`, id)
		return context.Canceled
	})
}

// holesBelowRows makes n holes, each a rolled-back write followed by a
// committed one, and returns the events the committed rows dispatch.
func holesBelowRows(t *testing.T, db *store.DB, n int) []string {
	t.Helper()
	var want []string
	for i := range n {
		rollBack(t, db, fmt.Sprintf("rolled%d", i))
		exec(t, db, `INSERT INTO widgets (id, owner) VALUES ($1, 'o1')`, fmt.Sprintf("c%d", i))
		want = append(want, fmt.Sprintf("widgets:member:c%d", i))
	}
	return want
}

// inFlight runs write in a transaction that stays open until the returned
// commit is called.
func inFlight(t *testing.T, db *store.DB, write func(q store.Querier)) (commit func()) {
	t.Helper()
	wrote, release, done := make(chan struct{}), make(chan struct{}), make(chan error, 1)
	var wroteOnce, releaseOnce sync.Once
	go func() {
		done <- db.Tx(context.Background(), func(q store.Querier) error {
			write(q)
			wroteOnce.Do(func() { close(wrote) })
			<-release
			return nil
		})
	}()
	select {
	case <-wrote:
	case err := <-done:
		t.Fatalf("in-flight write: %v", err)
	}
	commit = func() {
		t.Helper()
		releaseOnce.Do(func() { close(release) })
		if err := <-done; err != nil {
			t.Fatalf("in-flight commit: %v", err)
		}
	}
	// A failing test must not leave the transaction (and its connection) open.
	t.Cleanup(func() { releaseOnce.Do(func() { close(release) }) })
	return commit
}

// syncTake syncs and returns what was dispatched, sorted.
func syncTake(t *testing.T, f *changefeed.Feed, rec *recorder) []string {
	t.Helper()
	if err := f.Sync(context.Background()); err != nil {
		t.Fatal(err)
	}
	got := rec.take()
	slices.Sort(got)
	return got
}

// A hole that never fills (a rolled-back write) below more changes than one
// read returns must not hold the sync up: it used to re-read the same rows
// from the hole until the hole expired (GapWait, 30 s), holding the lock
// every Fresh caller waits on.
func TestUnfilledHoleDoesNotHoldUpLaterChanges(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		f, rec := setup(t, db)
		rollBack(t, db, "rolled")
		want := insertWidgets(t, db, "w", 5001) // more than one read's batch
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := f.Sync(ctx); err != nil {
			t.Fatalf("sync: %v", err)
		}
		got := rec.take()
		slices.Sort(got)
		if !slices.Equal(got, want) {
			t.Fatalf("dispatched %d events, want the %d widgets once each", len(got), len(want))
		}
		if got := syncTake(t, f, rec); len(got) != 0 {
			t.Fatalf("the next sync dispatched %d events again", len(got))
		}
	})
}

// A big transaction (more change rows than the feed used to wait for) that
// commits after a smaller, later one is delivered: the ids it holds are one
// hole, watched like any other. The feed used to jump past them, so caches
// refilled with the rows it was about to change and kept them.
func TestBigTransactionCommittingLateIsDelivered(t *testing.T) {
	db := storetest.Postgres(t)
	f, rec := setup(t, db)
	var want []string
	commit := inFlight(t, db, func(q store.Querier) { want = insertWidgets(t, q, "big", 10001) })
	exec(t, db, `INSERT INTO widgets (id, owner) VALUES ('fast', 'o1')`)
	if got := syncTake(t, f, rec); !slices.Equal(got, []string{"widgets:member:fast"}) {
		t.Fatalf("first sync dispatched %v", got)
	}
	commit()
	if got := syncTake(t, f, rec); !slices.Equal(got, want) {
		t.Fatalf("after the big commit dispatched %d events, want its %d changes once each", len(got), len(want))
	}
	if got := syncTake(t, f, rec); len(got) != 0 {
		t.Fatalf("the next sync dispatched %d events again", len(got))
	}
	if n := changefeed.Holes(f); n != 0 {
		t.Fatalf("%d holes left after the transaction filled its own", n)
	}
}

// Changes of transactions in flight when the feed starts are delivered when
// they commit, though newer ids were already visible: the feed used to
// start after the newest id and never look below it.
func TestTransactionInFlightAtStartIsDelivered(t *testing.T) {
	db := storetest.Postgres(t)
	install(t, db)
	var want []string
	commit := inFlight(t, db, func(q store.Querier) { want = insertWidgets(t, q, "slow", 3) })
	exec(t, db, `INSERT INTO widgets (id, owner) VALUES ('fast', 'o1')`)
	f, rec := start(t, db)
	commit()
	if got := syncTake(t, f, rec); !slices.Equal(got, want) {
		t.Fatalf("after the commit dispatched %v, want %v", got, want)
	}
	if got := syncTake(t, f, rec); len(got) != 0 {
		t.Fatalf("the next sync dispatched %v again", got)
	}
}

// At start the feed watches only holes among recent ids: older ones would
// be given up at once, and the table may hold an hour of changes.
func TestStartWatchesOnlyRecentHoles(t *testing.T) {
	db := storetest.Postgres(t)
	install(t, db)
	// Two old changes (at = 1 ms and 2 ms after the epoch) with a hole
	// between them, then a recent hole.
	exec(t, db, `INSERT INTO changes (tbl, scope, row_key, at) VALUES ('widgets', 'member', 'old1', 1)`)
	rollBack(t, db, "rolled-old")
	exec(t, db, `INSERT INTO changes (tbl, scope, row_key, at) VALUES ('widgets', 'member', 'old2', 2)`)
	rollBack(t, db, "rolled-new")
	exec(t, db, `INSERT INTO widgets (id, owner) VALUES ('new', 'o1')`)
	f, _ := start(t, db)
	if n := changefeed.Holes(f); n != 1 {
		t.Fatalf("watching %d holes at start, want the recent one", n)
	}
}

// Late commits landing anywhere in a hole (first, middle or last of its
// ids, in any order) are each delivered once.
func TestLateCommitsInAnyOrderAreDeliveredOnce(t *testing.T) {
	db := storetest.Postgres(t)
	f, rec := setup(t, db)
	commits := make([]func(), 3)
	for i := range commits {
		id := fmt.Sprintf("slow%d", i)
		commits[i] = inFlight(t, db, func(q store.Querier) {
			exec(t, q, `INSERT INTO widgets (id, owner) VALUES ($1, 'o1')`, id)
		})
	}
	exec(t, db, `INSERT INTO widgets (id, owner) VALUES ('fast', 'o1')`)
	if got := syncTake(t, f, rec); !slices.Equal(got, []string{"widgets:member:fast"}) {
		t.Fatalf("first sync dispatched %v", got)
	}
	for _, i := range []int{1, 2, 0} { // the middle id first splits the hole
		commits[i]()
		want := []string{fmt.Sprintf("widgets:member:slow%d", i)}
		if got := syncTake(t, f, rec); !slices.Equal(got, want) {
			t.Fatalf("after slow%d committed dispatched %v, want %v", i, got, want)
		}
	}
	if got := syncTake(t, f, rec); len(got) != 0 {
		t.Fatalf("the next sync dispatched %v again", got)
	}
	if n := changefeed.Holes(f); n != 0 {
		t.Fatalf("%d holes left after every transaction committed", n)
	}
}

// The holes watched are bounded: past the bound the oldest half is given
// up and everything cached is dropped, while the newest holes are still
// watched.
func TestHolesAreBounded(t *testing.T) {
	db := storetest.Postgres(t)
	f, rec := setup(t, db)
	changefeed.SetMaxHoles(f, 4)
	want := holesBelowRows(t, db, 6)
	commit := inFlight(t, db, func(q store.Querier) {
		exec(t, q, `INSERT INTO widgets (id, owner) VALUES ('slow', 'o1')`)
	})
	exec(t, db, `INSERT INTO widgets (id, owner) VALUES ('fast', 'o1')`)
	want = append(want, "widgets:member:fast", "*")
	got := syncTake(t, f, rec)
	for _, w := range want {
		if !slices.Contains(got, w) {
			t.Fatalf("dispatched %v, want every change and a reset", got)
		}
	}
	if n := changefeed.Holes(f); n > 4 {
		t.Fatalf("watching %d holes, want at most 4", n)
	}
	commit()
	if got := syncTake(t, f, rec); !slices.Equal(got, []string{"widgets:member:slow"}) {
		t.Fatalf("after the newest hole's commit dispatched %v", got)
	}
}

// A late commit is delivered however many holes lie below it (holes are
// read a few dozen per query).
func TestLateCommitAboveManyHolesIsDelivered(t *testing.T) {
	db := storetest.Postgres(t)
	f, rec := setup(t, db)
	want := holesBelowRows(t, db, 100)
	commit := inFlight(t, db, func(q store.Querier) {
		exec(t, q, `INSERT INTO widgets (id, owner) VALUES ('slow', 'o1')`)
	})
	exec(t, db, `INSERT INTO widgets (id, owner) VALUES ('fast', 'o1')`)
	want = append(want, "widgets:member:fast")
	slices.Sort(want)
	if got := syncTake(t, f, rec); !slices.Equal(got, want) {
		t.Fatalf("first sync dispatched %v, want %v", got, want)
	}
	if n := changefeed.Holes(f); n != 101 {
		t.Fatalf("watching %d holes, want 101", n)
	}
	commit()
	if got := syncTake(t, f, rec); !slices.Equal(got, []string{"widgets:member:slow"}) {
		t.Fatalf("after the late commit dispatched %v", got)
	}
}
