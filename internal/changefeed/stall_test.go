package changefeed_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/latchkey/latchkey/internal/changefeed"
	"github.com/latchkey/latchkey/internal/clock"
	"github.com/latchkey/latchkey/internal/store"
	"github.com/latchkey/latchkey/internal/store/storetest"
)

// These tests move the feed's wall clock (a fake) instead of waiting:
// GapWait is 30 s.

// fakedFeed is setup with the feed's wall clock a fake the test moves.
func fakedFeed(t *testing.T, db *store.DB) (*changefeed.Feed, *recorder, *clock.Fake) {
	t.Helper()
	install(t, db)
	f := changefeed.New(db, nil)
	clk := clock.NewFake(time.Now())
	changefeed.SetClock(f, clk.Now)
	f, rec := startFeed(t, f)
	return f, rec, clk
}

// holeAtSlow leaves an insert of 'slow' in flight, commits 'fast' after
// it and syncs, so that f watches a hole at slow's change; it returns
// slow's commit.
func holeAtSlow(t *testing.T, db *store.DB, f *changefeed.Feed, rec *recorder) (commit func()) {
	t.Helper()
	commit = inFlight(t, db, func(q store.Querier) {
		exec(t, q, `INSERT INTO widgets (id, owner) VALUES ('slow', 'o1')`)
	})
	exec(t, db, `INSERT INTO widgets (id, owner) VALUES ('fast', 'o1')`)
	if got := syncTake(t, f, rec); !slices.Equal(got, []string{"widgets:member:fast"}) {
		t.Fatalf("first sync dispatched %v", got)
	}
	return commit
}

// A transaction that commits promptly into a hole while this process
// cannot poll (the database unreachable, the process paused) for longer
// than GapWait is delivered by the first sync after: the feed used to give
// the hole up, by its age, before reading it, so the change was never
// delivered and nothing was reset. The stall itself drops everything
// cached, as the feed no longer vouches for all it missed.
func TestHoleFilledDuringAStallIsDelivered(t *testing.T) {
	db := storetest.Postgres(t)
	f, rec, clk := fakedFeed(t, db)
	commit := holeAtSlow(t, db, f, rec)
	commit()
	clk.Advance(changefeed.GapWait + time.Second) // no sync all that while
	if got := syncTake(t, f, rec); !slices.Equal(got, []string{"*", "widgets:member:slow"}) {
		t.Fatalf("after the stall dispatched %v, want the late commit and a reset", got)
	}
	if got := syncTake(t, f, rec); len(got) != 0 {
		t.Fatalf("the next sync dispatched %v again", got)
	}
	if n := changefeed.Holes(f); n != 0 {
		t.Fatalf("%d holes left after the transaction filled its own", n)
	}
}

// A hole is read once more before it is given up: a transaction that
// commits between the last poll and the one that finds its hole older
// than GapWait is delivered, with no stall and so no reset.
func TestHoleIsReadBeforeItIsGivenUp(t *testing.T) {
	db := storetest.Postgres(t)
	f, rec, clk := fakedFeed(t, db)
	commit := holeAtSlow(t, db, f, rec)
	// Polls keep going while the transaction is open...
	for elapsed := time.Duration(0); elapsed < changefeed.GapWait; elapsed += 10 * time.Second {
		clk.Advance(10 * time.Second)
		if got := syncTake(t, f, rec); len(got) != 0 {
			t.Fatalf("a poll while the hole is open dispatched %v", got)
		}
	}
	// ...and it commits just before the poll that finds its hole too old.
	commit()
	clk.Advance(time.Second)
	if got := syncTake(t, f, rec); !slices.Equal(got, []string{"widgets:member:slow"}) {
		t.Fatalf("the poll that gives the hole up dispatched %v, want the commit in it", got)
	}
	if n := changefeed.Holes(f); n != 0 {
		t.Fatalf("%d holes left", n)
	}
}

// A hole still empty when it is older than GapWait is given up (a
// rolled-back insert's never fills), on the poll that reads it one last
// time.
func TestEmptyHoleIsGivenUpAfterGapWait(t *testing.T) {
	db := storetest.Postgres(t)
	f, rec, clk := fakedFeed(t, db)
	rollBack(t, db, "rolled")
	exec(t, db, `INSERT INTO widgets (id, owner) VALUES ('w1', 'o1')`)
	if got := syncTake(t, f, rec); !slices.Equal(got, []string{"widgets:member:w1"}) {
		t.Fatalf("first sync dispatched %v", got)
	}
	clk.Advance(changefeed.GapWait / 2)
	syncTake(t, f, rec)
	if n := changefeed.Holes(f); n != 1 {
		t.Fatalf("watching %d holes before GapWait, want the rolled-back id's", n)
	}
	clk.Advance(changefeed.GapWait / 2)
	clk.Advance(time.Second)
	if got := syncTake(t, f, rec); len(got) != 0 {
		t.Fatalf("giving the hole up dispatched %v", got)
	}
	if n := changefeed.Holes(f); n != 0 {
		t.Fatalf("watching %d holes after GapWait, want none", n)
	}
}

// The sync that ends a stall longer than GapWait drops everything cached,
// on both engines, besides delivering what changed; shorter pauses
// between syncs reset nothing.
func TestSyncAfterAStallResets(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		f, rec, clk := fakedFeed(t, db)
		exec(t, db, `INSERT INTO widgets (id, owner) VALUES ('w1', 'o1')`)
		clk.Advance(changefeed.GapWait - time.Second)
		if got := syncTake(t, f, rec); !slices.Equal(got, []string{"widgets:member:w1"}) {
			t.Fatalf("a sync within GapWait dispatched %v, want the change alone", got)
		}
		exec(t, db, `INSERT INTO widgets (id, owner) VALUES ('w2', 'o1')`)
		clk.Advance(changefeed.GapWait + time.Second)
		if got := syncTake(t, f, rec); !slices.Equal(got, []string{"*", "widgets:member:w2"}) {
			t.Fatalf("the sync after a stall dispatched %v, want the change and a reset", got)
		}
		if got := syncTake(t, f, rec); len(got) != 0 {
			t.Fatalf("the next sync dispatched %v", got)
		}
	})
}

// A sync is as fresh as its start: a change committed while it ran may
// have missed its reads. So a sync that took MaxLag leaves the feed stale
// at once, and the next Fresh reads again, even with no write of this
// process to catch up on. The feed used to stamp a sync with its end.
func TestSlowSyncIsAsFreshAsItsStart(t *testing.T) {
	storetest.EachPair(t, func(t *testing.T, db, other *store.DB) {
		ctx := context.Background()
		f, rec, clk := fakedFeed(t, db)
		// Reading w1 takes MaxLag: the clock moves while its event is
		// dispatched.
		f.Subscribe(func(ev changefeed.Event) {
			if ev.Key == "w1" {
				clk.Advance(changefeed.MaxLag)
			}
		})
		// Written by another process (its own handle), so this one's
		// write count does not move and only the lag can make Fresh read.
		exec(t, other, `INSERT INTO widgets (id, owner) VALUES ('w1', 'o1')`)
		if got := syncTake(t, f, rec); !slices.Equal(got, []string{"widgets:member:w1"}) {
			t.Fatalf("sync dispatched %v", got)
		}
		exec(t, other, `INSERT INTO widgets (id, owner) VALUES ('w2', 'o1')`)
		if err := f.Fresh(ctx); err != nil {
			t.Fatal(err)
		}
		if got := rec.take(); !slices.Equal(got, []string{"widgets:member:w2"}) {
			t.Fatalf("Fresh after a sync that took MaxLag dispatched %v, want it to read w2", got)
		}
		// A sync that began less than MaxLag ago is fresh enough.
		clk.Advance(changefeed.MaxLag / 2)
		exec(t, other, `INSERT INTO widgets (id, owner) VALUES ('w3', 'o1')`)
		if err := f.Fresh(ctx); err != nil {
			t.Fatal(err)
		}
		if got := rec.take(); len(got) != 0 {
			t.Fatalf("Fresh within MaxLag of the last sync read %v", got)
		}
	})
}
