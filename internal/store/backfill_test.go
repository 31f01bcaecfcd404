package store_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/latchkey/latchkey/internal/store"
	"github.com/latchkey/latchkey/internal/store/storetest"
)

// Backfill fills every unfilled row across several batches, leaves filled
// rows as they are, and finds nothing the second time.
func TestBackfillFillsUnfilledRows(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := t.Context()
		mustExec(t, db, `CREATE TABLE bf (id TEXT PRIMARY KEY, src TEXT NOT NULL, dst TEXT)`)
		const rows = 1203 // three batches, the last short
		err := db.Tx(ctx, func(q store.Querier) error {
			for i := range rows {
				if _, err := q.ExecContext(ctx, `INSERT INTO bf (id, src) VALUES ($1, $2)`,
					fmt.Sprintf("r%04d", i), fmt.Sprintf("name %d", i)); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		// A row its writer already filled keeps its own value.
		mustExec(t, db, `UPDATE bf SET dst = 'own' WHERE id = 'r0007'`)
		bf := store.Backfill{Table: "bf", Key: "id", Source: "src", Target: "dst", Derive: strings.ToUpper}
		n, err := bf.Run(ctx, db)
		if err != nil || n != rows-1 {
			t.Fatalf("Run = %d, %v; want %d", n, err, rows-1)
		}
		var unfilled, wrong int
		if err := db.Read().QueryRowContext(ctx, `SELECT COUNT(*) FROM bf WHERE dst IS NULL`).Scan(&unfilled); err != nil {
			t.Fatal(err)
		}
		if err := db.Read().QueryRowContext(ctx, `SELECT COUNT(*) FROM bf WHERE id <> 'r0007' AND dst <> UPPER(src)`).Scan(&wrong); err != nil {
			t.Fatal(err)
		}
		if unfilled != 0 || wrong != 0 {
			t.Errorf("after Run: %d unfilled, %d wrong", unfilled, wrong)
		}
		var own string
		if err := db.Read().QueryRowContext(ctx, `SELECT dst FROM bf WHERE id = 'r0007'`).Scan(&own); err != nil || own != "own" {
			t.Errorf("a filled row became %q (%v)", own, err)
		}
		if n, err := bf.Run(ctx, db); err != nil || n != 0 {
			t.Errorf("second Run = %d, %v; want 0", n, err)
		}
	})
}

// A row whose source changes between Backfill's read and its write (an older
// replica's write, which leaves the target NULL) is not given the value
// derived from the stale source; the next run derives it from the new one.
// PostgreSQL only: on SQLite the run holds the one writer, so no write can
// come between.
func TestBackfillSkipsARowChangedMeanwhile(t *testing.T) {
	db := storetest.Postgres(t)
	ctx := t.Context()
	mustExec(t, db, `CREATE TABLE bf (id TEXT PRIMARY KEY, src TEXT NOT NULL, dst TEXT)`)
	mustExec(t, db, `INSERT INTO bf (id, src) VALUES ('a', 'old'), ('b', 'other')`)
	bf := store.Backfill{Table: "bf", Key: "id", Source: "src", Target: "dst", Derive: func(s string) string {
		if s == "old" { // after the read, before the write
			mustExec(t, db, `UPDATE bf SET src = 'new' WHERE id = 'a'`)
		}
		return strings.ToUpper(s)
	}}
	if n, err := bf.Run(ctx, db); err != nil || n != 1 {
		t.Fatalf("Run = %d, %v; want 1 (b only)", n, err)
	}
	var dst *string
	if err := db.Read().QueryRowContext(ctx, `SELECT dst FROM bf WHERE id = 'a'`).Scan(&dst); err != nil || dst != nil {
		t.Fatalf("the changed row was filled from its stale source: %v (%v)", deref(dst), err)
	}
	if n, err := bf.Run(ctx, db); err != nil || n != 1 {
		t.Fatalf("second Run = %d, %v; want 1", n, err)
	}
	if err := db.Read().QueryRowContext(ctx, `SELECT dst FROM bf WHERE id = 'a'`).Scan(&dst); err != nil || deref(dst) != "NEW" {
		t.Errorf("after the second run: %q (%v), want NEW", deref(dst), err)
	}
}

func mustExec(t *testing.T, db *store.DB, query string) {
	t.Helper()
	if _, err := db.ExecContext(t.Context(), query); err != nil {
		t.Fatalf("%s: %v", query, err)
	}
}

func deref(s *string) string {
	if s == nil {
		return "<nil>"
	}
	return *s
}
