package sweeper_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/latchkey/latchkey/internal/store"
	"github.com/latchkey/latchkey/internal/store/storetest"
	"github.com/latchkey/latchkey/internal/sweeper"
)

// fill inserts n rows (a, 'r<i>', ts) in one statement: fills with other
// a values share their b values.
func fill(t *testing.T, db *store.DB, n int, a string, ts int64) {
	t.Helper()
	if _, err := db.ExecContext(context.Background(), fmt.Sprintf(`WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < %d)
		INSERT INTO sweep_pairs (a, b, ts) SELECT '%s', 'r' || i, %d FROM n`, n, a, ts)); err != nil {
		t.Fatal(err)
	}
}

func countWhere(t *testing.T, db *store.DB, where string) int {
	t.Helper()
	var n int
	if err := db.Read().QueryRowContext(context.Background(), `SELECT COUNT(*) FROM sweep_pairs WHERE `+where).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// A backlog is deleted in statements of at most Batch rows until none is
// left, by a composite key matched whole: a live row that shares one key
// column with expired rows stays, as do rows Where keeps.
func TestExpiredSweepsInBatchesByTheWholeKey(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		if _, err := db.ExecContext(ctx, `CREATE TABLE sweep_pairs (a TEXT NOT NULL, b TEXT NOT NULL, ts BIGINT NOT NULL,
			PRIMARY KEY (a, b))`); err != nil {
			t.Fatal(err)
		}
		now := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
		old, live := store.Millis(now.Add(-2*time.Hour)), store.Millis(now)
		fill(t, db, 2500, "x", old)
		// Live rows whose b values are those of expired rows.
		fill(t, db, 30, "y", live)
		// Expired, but kept by Where (it refers to the cutoff as $1).
		fill(t, db, 20, "z", old)
		e := sweeper.Expired{DB: db, Table: "sweep_pairs", Key: "a, b", Column: "ts", Keep: time.Hour, Where: "a <> 'z' OR ts < $1 - 86400000"}

		q, err := e.Statement()
		if err != nil {
			t.Fatal(err)
		}
		res, err := db.ExecContext(ctx, q, store.Millis(now.Add(-time.Hour)))
		if err != nil {
			t.Fatal(err)
		}
		if n, _ := res.RowsAffected(); n != sweeper.Batch {
			t.Fatalf("one statement deleted %d rows, want a batch of %d", n, sweeper.Batch)
		}
		n, err := e.Sweep(ctx, now)
		if err != nil || n != 2500-sweeper.Batch {
			t.Fatalf("sweep: %d rows (%v), want the other %d", n, err, 2500-sweeper.Batch)
		}
		if x, y, z := countWhere(t, db, "a = 'x'"), countWhere(t, db, "a = 'y'"), countWhere(t, db, "a = 'z'"); x != 0 || y != 30 || z != 20 {
			t.Fatalf("left x %d, y %d, z %d; want 0, 30, 20", x, y, z)
		}
		if n, err := e.Sweep(ctx, now); n != 0 || err != nil {
			t.Fatalf("second sweep: %d (%v)", n, err)
		}
	})
}

// Without a Column, Where alone selects the rows (garbage as soon as it
// matches them), still a batch per statement, and no cutoff is bound.
func TestExpiredWithoutAColumnSweepsWhereAloneInBatches(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		if _, err := db.ExecContext(ctx, `CREATE TABLE sweep_pairs (a TEXT NOT NULL, b TEXT NOT NULL, ts BIGINT NOT NULL,
			PRIMARY KEY (a, b))`); err != nil {
			t.Fatal(err)
		}
		now := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
		fill(t, db, 2500, "gone", store.Millis(now.Add(time.Hour))) // newer than now: no age condition applies
		fill(t, db, 30, "kept", store.Millis(now.Add(-time.Hour)))
		e := sweeper.Expired{DB: db, Table: "sweep_pairs", Key: "a, b", Where: "a = 'gone'", Label: "gone_pairs"}
		q, err := e.Statement()
		if err != nil || strings.Contains(q, "$1") {
			t.Fatalf("statement %q: %v", q, err)
		}
		res, err := db.ExecContext(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		if n, _ := res.RowsAffected(); n != sweeper.Batch {
			t.Fatalf("one statement deleted %d rows, want a batch of %d", n, sweeper.Batch)
		}
		if n, err := e.Sweep(ctx, now); err != nil || n != 2500-sweeper.Batch {
			t.Fatalf("sweep: %d rows (%v)", n, err)
		}
		if gone, kept := countWhere(t, db, "a = 'gone'"), countWhere(t, db, "a = 'kept'"); gone != 0 || kept != 30 || e.Name() != "gone_pairs" {
			t.Fatalf("left gone %d, kept %d; name %q", gone, kept, e.Name())
		}
		if _, err := (sweeper.Expired{DB: db, Table: "sweep_pairs", Key: "a"}).Statement(); err == nil {
			t.Fatal("neither a Column nor a Where: every row would be swept")
		}
	})
}
