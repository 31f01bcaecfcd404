package store_test

import (
	"slices"
	"testing"

	"github.com/latchkey/latchkey/internal/store"
	"github.com/latchkey/latchkey/internal/store/storetest"
)

// Strings and Pairs return every row in the query's order, nothing for no
// rows, and the error of a query or a scan that fails instead of a partial
// answer.
func TestStringsAndPairs(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := t.Context()
		mustExec(t, db, `CREATE TABLE kv (k TEXT PRIMARY KEY, v TEXT NOT NULL, n BIGINT)`)
		mustExec(t, db, `INSERT INTO kv (k, v, n) VALUES ('b', 'two', 2), ('a', 'one', 1), ('c', 'three', NULL)`)

		keys, err := store.Strings(ctx, db.Read(), `SELECT k FROM kv WHERE n IS NOT NULL ORDER BY k DESC`)
		if err != nil || !slices.Equal(keys, []string{"b", "a"}) {
			t.Fatalf("Strings = %q, %v", keys, err)
		}
		pairs, err := store.Pairs(ctx, db.Read(), `SELECT k, v FROM kv WHERE k <> $1 ORDER BY k`, "b")
		if err != nil || !slices.Equal(pairs, [][2]string{{"a", "one"}, {"c", "three"}}) {
			t.Fatalf("Pairs = %q, %v", pairs, err)
		}
		none, err := store.Strings(ctx, db.Read(), `SELECT k FROM kv WHERE k = 'z'`)
		if err != nil || none != nil {
			t.Fatalf("Strings of no rows = %#v, %v", none, err)
		}
		if got, err := store.Strings(ctx, db.Read(), `SELECT k FROM nosuch`); err == nil {
			t.Fatalf("a failing query answered %q", got)
		}
		// A NULL cannot be a string: the scan's error, not the rows before it.
		if got, err := store.Strings(ctx, db.Read(), `SELECT n FROM kv ORDER BY k`); err == nil {
			t.Fatalf("a failing scan answered %q", got)
		}
		if got, err := store.Pairs(ctx, db.Read(), `SELECT k FROM kv`); err == nil {
			t.Fatalf("Pairs of one column answered %q", got)
		}
	})
}
