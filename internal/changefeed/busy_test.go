package changefeed_test

import (
	"context"
	"database/sql"
	"fmt"
	"testing"
	"time"

	"github.com/latchkey/latchkey/internal/changefeed"
	"github.com/latchkey/latchkey/internal/store"
	"github.com/latchkey/latchkey/internal/store/storetest"
)

// A database that answers, but whose read connections are all taken for
// longer than SyncTimeout (slow list or search requests), is loaded, not
// silent: a sync waits for a connection as the requests behind it did
// before syncs had a deadline, and Fresh succeeds once one is free. It
// used to count the wait against SyncTimeout and answer
// store.ErrUnavailable, a 500 for every request queued behind it.
func TestBusyReadPoolIsNotAnOutage(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		f, _, clk := fakedFeed(t, db)
		held := takeEveryReadConnection(t, db)
		hold := changefeed.SyncTimeout + changefeed.SyncTimeout/2
		time.AfterFunc(hold, func() {
			for _, c := range held {
				c.Close()
			}
		})
		clk.Advance(changefeed.MaxLag) // Fresh must sync
		start := time.Now()
		if err := f.Fresh(context.Background()); err != nil {
			t.Fatalf("Fresh while the read pool was busy for %s: %v", hold, err)
		}
		if d := time.Since(start); d < changefeed.SyncTimeout {
			t.Fatalf("Fresh returned after %s, before a read connection was free", d)
		}
	})
}

// takeEveryReadConnection reserves every read connection of the pool,
// and returns them. Taking until the pool reports busy was not enough: the
// feed's own loop may hold one for a moment, so the pool looked busy with
// one connection not the test's, which the loop then freed for Fresh (seen
// under the race detector: Fresh returned after 36 ms). So it takes until
// no connection comes within a wait far longer than any sync's query.
func takeEveryReadConnection(t *testing.T, db *store.DB) []*sql.Conn {
	t.Helper()
	var held []*sql.Conn
	t.Cleanup(func() {
		for _, c := range held {
			c.Close()
		}
	})
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
		c, err := db.ReadConn(ctx)
		cancel()
		if err != nil {
			if !db.ReadPoolBusy() {
				t.Fatalf("no read connection though the pool is not busy: %v", err)
			}
			return held
		}
		held = append(held, c)
	}
}

// A sync whose rows take long to deliver (here each subscriber call
// sleeps, as a cache walking many entries per event might), longer in all
// than SyncTimeout though the database answered each batch at once, is
// progress, not an outage: the watchdog times the database only. It used
// to fire after the batch's query and fail the sync, and every request
// queued behind it, with store.ErrUnavailable.
func TestSlowDeliveryIsNotAnOutage(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		f, _, _ := fakedFeed(t, db)
		const rows = 600
		exec(t, db, `WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM c WHERE n < `+fmt.Sprint(rows)+`)
			INSERT INTO widgets (id, owner) SELECT 'w' || n, 'o' FROM c`)
		per := 2 * changefeed.SyncTimeout / rows // the whole delivery takes twice SyncTimeout
		f.Subscribe(func(changefeed.Event) { time.Sleep(per) })
		start := time.Now()
		if err := f.Sync(context.Background()); err != nil {
			t.Fatalf("sync delivering %d rows over %s: %v", rows, time.Since(start), err)
		}
	})
}
