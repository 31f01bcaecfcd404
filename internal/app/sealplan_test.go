package app

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/latchkey/latchkey/internal/store"
)

// Every start seals what is still plaintext in each of SealedColumns
// (atrest.SealExisting): its batches must read a partial index of the
// values still to seal, never the table, or a start's cost grows with the
// table (issue 12: member_oauth_registrations, 100,000 rows, took a
// second). A column added to SealedColumns needs its index ("<table>_unsealed",
// with atrest.Column.PlaintextCond as its predicate) in its migrations.
func TestSealExistingReadsPartialIndexes(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db, err := store.Open(ctx, filepath.Join(t.TempDir(), "plan.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := MigrateDB(ctx, db); err != nil {
		t.Fatal(err)
	}
	for _, c := range SealedColumns() {
		q := c.PlaintextQuery()
		plan, ok := queryPlan(ctx, db, q)
		if !ok {
			t.Fatalf("%s.%s: no plan for %s", c.Table, c.Column, q)
		}
		if p := strings.Join(plan, " | "); !strings.Contains(p, "USING INDEX "+c.Table+"_unsealed") {
			t.Errorf("%s.%s: the plaintext pass does not read its partial index:\n  %s\n  plan: %s", c.Table, c.Column, q, p)
		}
	}
}
