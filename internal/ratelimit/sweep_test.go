package ratelimit_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/latchkey/latchkey/internal/clock"
	"github.com/latchkey/latchkey/internal/ratelimit"
	"github.com/latchkey/latchkey/internal/store"
	"github.com/latchkey/latchkey/internal/store/storetest"
	"github.com/latchkey/latchkey/internal/sweeper"
)

// rows inserts n rows into table in one statement; cols are the columns
// after the key, vals their SQL values, the key is prefix || i.
func rows(t *testing.T, db *store.DB, table, key string, n int, prefix, cols, vals string) {
	t.Helper()
	q := fmt.Sprintf(`WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < %d)
		INSERT INTO %s (%s, %s) SELECT '%s' || i, %s FROM n`, n, table, key, cols, prefix, vals)
	if _, err := db.ExecContext(context.Background(), q); err != nil {
		t.Fatal(err)
	}
}

func tableCount(t *testing.T, db *store.DB, q string) int {
	t.Helper()
	var n int
	if err := db.Read().QueryRowContext(context.Background(), q).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// A backlog of finished windows and counters goes in bounded batches, and
// nothing live goes with it: not the current window of a bucket whose old
// windows are swept, nor a counter whose lock still runs.
func TestSweepDeletesFinishedWindowsInBatches(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		clk := clock.NewFake(time.Date(2026, 1, 2, 12, 0, 0, 0, time.UTC))
		l := ratelimit.New(db, clk)
		keep := 24 * time.Hour
		old, recent := store.Millis(clk.Now().Add(-keep-time.Minute)), store.Millis(clk.Now().Add(-time.Minute))
		// 2,500 finished windows, and the buckets' current windows.
		rows(t, db, "rate_limits", "bucket", 2500, "b", "window_start, hits", fmt.Sprintf("%d, 1", old))
		rows(t, db, "rate_limits", "bucket", 40, "b", "window_start, hits", fmt.Sprintf("%d, 1", recent))
		// 2,500 counters done with, 15 whose lock still runs, 25 in a live window.
		rows(t, db, "attempt_counters", "bucket", 2500, "old", "window_start, hits, locked_until", fmt.Sprintf("%d, 1, %d", old, old))
		rows(t, db, "attempt_counters", "bucket", 15, "locked", "window_start, hits, locked_until",
			fmt.Sprintf("%d, 9, %d", old, store.Millis(clk.Now().Add(time.Hour))))
		rows(t, db, "attempt_counters", "bucket", 25, "live", "window_start, hits, locked_until", fmt.Sprintf("%d, 1, 0", recent))

		// Each statement of the sweep is bounded.
		for _, s := range l.Sweeps(keep) {
			q, err := s.(sweeper.Expired).Statement()
			if err != nil {
				t.Fatal(err)
			}
			res, err := db.ExecContext(ctx, q, store.Millis(clk.Now().Add(-keep)))
			if err != nil {
				t.Fatal(err)
			}
			if n, _ := res.RowsAffected(); n != sweeper.Batch {
				t.Fatalf("%s: one statement deleted %d rows, want %d", s.Name(), n, sweeper.Batch)
			}
		}
		if err := l.Sweep(ctx, keep); err != nil {
			t.Fatal(err)
		}
		if n := tableCount(t, db, `SELECT COUNT(*) FROM rate_limits`); n != 40 {
			t.Fatalf("%d windows left, want the 40 current ones", n)
		}
		if n := tableCount(t, db, fmt.Sprintf(`SELECT COUNT(*) FROM rate_limits WHERE window_start = %d`, recent)); n != 40 {
			t.Fatalf("%d current windows left, want 40", n)
		}
		left := tableCount(t, db, `SELECT COUNT(*) FROM attempt_counters`)
		kept := tableCount(t, db, `SELECT COUNT(*) FROM attempt_counters WHERE bucket LIKE 'locked%' OR bucket LIKE 'live%'`)
		if left != 40 || kept != 40 {
			t.Fatalf("%d counters left (%d locked or live), want the 40 locked or live", left, kept)
		}
	})
}
