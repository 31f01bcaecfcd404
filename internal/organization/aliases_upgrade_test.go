package organization_test

import (
	"net/http"
	"testing"

	"github.com/latchkey/latchkey/internal/app"
	"github.com/latchkey/latchkey/internal/apptest"
	"github.com/latchkey/latchkey/internal/store"
)

// oldAliasRename is how a release from before store migration 0111
// renames an organization: it writes organizations only and knows nothing
// of organization_aliases.
const oldAliasRename = `UPDATE organizations SET organization_slug = $1, organization_external_id = $2, updated_at = updated_at + 1
	WHERE organization_id = $3`

// undoAliasRelease takes db back to before store migration 0115.
func undoAliasRelease(t *testing.T, db *store.DB) {
	t.Helper()
	undo := []string{`DROP TRIGGER organization_aliases_release`}
	if db.Dialect() == store.Postgres {
		undo = []string{`DROP TRIGGER organization_aliases_release ON organizations`, `DROP FUNCTION organization_aliases_release()`}
	}
	undo = append(undo, `DELETE FROM schema_migrations WHERE version = '0115'`)
	for _, q := range undo {
		if _, err := db.ExecContext(t.Context(), q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
}

// During a rolling deploy a replica of a release from before the shared
// namespace renames an organization: the names it gave up are free for
// another organization at once, through this release's API, as a slug and
// as an external id; the names it took are still refused to others.
func TestOlderReleaseRenameFreesTheOldNames(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		ctx := t.Context()
		acme := e.CreateOrg("acme", "NOT_ALLOWED", map[string]any{"organization_external_id": "crm-acme"})
		other := e.CreateOrg("other", "NOT_ALLOWED", nil)
		if _, err := e.App.DB.ExecContext(ctx, oldAliasRename, "acme-two", "crm-two", acme); err != nil {
			t.Fatal(err)
		}
		if n := e.Count(`SELECT COUNT(*) FROM organization_aliases WHERE organization_id = $1`, acme); n != 0 {
			t.Errorf("%d alias rows of the renamed organization left", n)
		}
		// The freed names, each in the other use too.
		apptest.Want(t, e.Backend(http.MethodPost, "/v1/b2b/organizations",
			map[string]any{"organization_name": "New Acme", "organization_slug": "crm-acme"}), 200, "")
		apptest.Want(t, e.Backend(http.MethodPut, "/v1/b2b/organizations/"+other, map[string]any{"organization_external_id": "acme"}), 200, "")
		// The names the older release gave without a row are still its
		// organization's (organization.aliasHolder's read of organizations).
		apptest.Want(t, e.Backend(http.MethodPost, "/v1/b2b/organizations",
			map[string]any{"organization_name": "Squat", "organization_slug": "crm-two"}), 400, "organization_slug_already_used")
		apptest.Want(t, e.Backend(http.MethodPut, "/v1/b2b/organizations/"+other, map[string]any{"organization_external_id": "acme-two"}),
			400, "organization_external_id_already_used")
		// This release's own rename of the organization, after the older
		// one's: the name it takes is its row, and the one it gives up is
		// free.
		apptest.Want(t, e.Backend(http.MethodPut, "/v1/b2b/organizations/"+acme, map[string]any{"organization_slug": "acme-three"}), 200, "")
		for alias, want := range map[string]int{"acme-three": 1, "acme-two": 0} {
			if n := e.Count(`SELECT COUNT(*) FROM organization_aliases WHERE organization_id = $1 AND alias = $2`, acme, alias); n != want {
				t.Errorf("alias %s: %d rows, want %d", alias, n, want)
			}
		}
		apptest.Want(t, e.Backend(http.MethodPut, "/v1/b2b/organizations/"+other, map[string]any{"organization_external_id": "acme-two"}), 200, "")
	})
}

// A database where such renames happened before the trigger existed
// (migration 0115) is repaired by the migration: the rows of names their
// organization no longer holds go, and the names it holds without a row
// get one.
func TestAliasReleaseMigrationRepairsStaleRows(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		ctx := t.Context()
		db := e.App.DB
		acme := e.CreateOrg("acme", "NOT_ALLOWED", map[string]any{"organization_external_id": "crm-acme"})
		kept := e.CreateOrg("kept", "NOT_ALLOWED", map[string]any{"organization_external_id": "crm-kept"})
		other := e.CreateOrg("other", "NOT_ALLOWED", nil)
		// The database as it was before 0115, with an older release's
		// rename in it.
		undoAliasRelease(t, db)
		if _, err := db.ExecContext(ctx, oldAliasRename, "acme-two", "crm-acme", acme); err != nil {
			t.Fatal(err)
		}
		apptest.Want(t, e.Backend(http.MethodPut, "/v1/b2b/organizations/"+other, map[string]any{"organization_external_id": "acme"}),
			400, "organization_external_id_already_used")
		if err := app.MigrateDB(ctx, db); err != nil {
			t.Fatal(err)
		}
		for _, c := range []struct {
			org, alias string
			want       int
		}{{acme, "acme", 0}, {acme, "acme-two", 1}, {acme, "crm-acme", 1}, {kept, "kept", 1}, {kept, "crm-kept", 1}} {
			if n := e.Count(`SELECT COUNT(*) FROM organization_aliases WHERE organization_id = $1 AND alias = $2`, c.org, c.alias); n != c.want {
				t.Errorf("alias %s: %d rows, want %d", c.alias, n, c.want)
			}
		}
		apptest.Want(t, e.Backend(http.MethodPut, "/v1/b2b/organizations/"+other, map[string]any{"organization_external_id": "acme"}), 200, "")
		apptest.Want(t, e.Backend(http.MethodPut, "/v1/b2b/organizations/"+other, map[string]any{"organization_slug": "acme-two"}),
			400, "organization_slug_already_used")
	})
}
