package organization_test

import (
	"net/http"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/latchkey/latchkey/internal/app"
	"github.com/latchkey/latchkey/internal/apptest"
	"github.com/latchkey/latchkey/internal/store"
)

// oldRename is how a release from before store migration 0103 renames an
// organization: it knows nothing of the folded name.
const oldRename = `UPDATE organizations SET organization_name = $1, updated_at = updated_at + 1 WHERE organization_id = $2`

// During a rolling deploy a replica of a release from before the folded
// name renames an organization: the search finds it by its new name once
// a sweep or a restart has run, and never by its old one.
func TestOlderReleaseRenameIsFoldedAgain(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		ctx := t.Context()
		db := e.App.DB
		org := e.CreateOrg("acme", "ALL_ALLOWED", map[string]any{"organization_name": "Acme Widgets"})
		search := func(q string) []string {
			return slugsOf(e, apptest.Query("AND", apptest.Filter("organization_name_fuzzy", q)))
		}
		changes := func() int {
			return e.Count(`SELECT COUNT(*) FROM changes WHERE tbl = 'organizations' AND row_key = $1`, org)
		}
		before := changes()
		if _, err := db.ExecContext(ctx, oldRename, "Zebra Logistics", org); err != nil {
			t.Fatal(err)
		}
		// The old name's key is gone at once; the change feed still saw
		// the rename.
		if got := search("acme"); got != nil {
			t.Errorf("old name after an older release's rename: %v", got)
		}
		if changes() <= before {
			t.Errorf("the rename recorded no change for the organization")
		}
		// The server's periodic sweep folds it.
		if _, err := e.App.Sweeper().Once(ctx); err != nil {
			t.Fatal(err)
		}
		if got := search("zebra"); !cmp.Equal(got, []string{"acme"}) {
			t.Errorf("new name after a sweep: %v", got)
		}

		// So does a restart.
		if _, err := db.ExecContext(ctx, oldRename, "Yak Freight", org); err != nil {
			t.Fatal(err)
		}
		if err := app.MigrateDB(ctx, db); err != nil {
			t.Fatal(err)
		}
		for q, want := range map[string][]string{"yak": {"acme"}, "zebra": nil, "acme": nil} {
			if got := search(q); !cmp.Equal(got, want) {
				t.Errorf("after a restart, %q = %v, want %v", q, got, want)
			}
		}

		// This release's renames keep the key without any fold pass, a
		// rename that changes only the case too.
		for _, name := range []string{"Ölwerk Freight", "ÖLWERK FREIGHT", "ölwerk freight"} {
			apptest.Want(t, e.Backend(http.MethodPut, "/v1/b2b/organizations/"+org, map[string]any{"organization_name": name}), 200, "")
			if got := search("Ölwerk"); !cmp.Equal(got, []string{"acme"}) {
				t.Errorf("after renaming to %q: %v", name, got)
			}
		}
		if n := e.Count(`SELECT COUNT(*) FROM organizations WHERE organization_name_folded IS NULL`); n != 0 {
			t.Errorf("%d organizations left unfolded", n)
		}
	})
}

// A database where such a rename happened before the trigger existed
// (migration 0112) is repaired by the migration: the stale key is folded
// again, and correct keys stay found.
func TestRefoldMigrationRepairsStaleNames(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		ctx := t.Context()
		db := e.App.DB
		stale := e.CreateOrg("stale", "ALL_ALLOWED", map[string]any{"organization_name": "Acme Widgets"})
		e.CreateOrg("oel", "ALL_ALLOWED", map[string]any{"organization_name": "ÖLWERK Σ"})
		e.CreateOrg("plain", "ALL_ALLOWED", map[string]any{"organization_name": "Plain Co"})
		search := func(q string) []string {
			return slugsOf(e, apptest.Query("AND", apptest.Filter("organization_name_fuzzy", q)))
		}
		// The database as it was before 0112, with an older release's
		// rename in it.
		undo := []string{`DROP TRIGGER organizations_name_refold`}
		if db.Dialect() == store.Postgres {
			undo = []string{`DROP TRIGGER organizations_name_refold ON organizations`, `DROP FUNCTION organizations_name_refold()`}
		}
		undo = append(undo, `DELETE FROM schema_migrations WHERE version = '0112'`)
		for _, q := range undo {
			if _, err := db.ExecContext(ctx, q); err != nil {
				t.Fatalf("%s: %v", q, err)
			}
		}
		if _, err := db.ExecContext(ctx, oldRename, "Zebra Logistics", stale); err != nil {
			t.Fatal(err)
		}
		if got := search("acme"); !cmp.Equal(got, []string{"stale"}) {
			t.Fatalf("the stale key was not there to repair: %v", got)
		}
		if err := app.MigrateDB(ctx, db); err != nil {
			t.Fatal(err)
		}
		for q, want := range map[string][]string{"zebra": {"stale"}, "acme": nil, "ölwerk σ": {"oel"}, "plain": {"plain"}} {
			if got := search(q); !cmp.Equal(got, want) {
				t.Errorf("after the migration, %q = %v, want %v", q, got, want)
			}
		}
	})
}
