package password_test

import (
	"net/http"
	"testing"

	"github.com/latchkey/latchkey/internal/apptest"
	"github.com/latchkey/latchkey/internal/password/pwhash"
	"github.com/latchkey/latchkey/internal/store"
)

// A migrate arriving while a deletion of the address's password is open
// waits on the row it would replace (heldCredential), finds it gone once
// the deletion commits, and stores the import as the first password, as
// deletion-then-migrate in sequence does.
func TestMigrateDuringPasswordDeletion(t *testing.T) {
	t.Parallel()
	e, org, hash := migrateRace(t)
	ctx := t.Context()
	e.CreateMember(org.OrganizationID, "ada@acme.test")
	e.SetPassword(org.OrganizationID, "ada@acme.test", "Other-Walrus-Trombone-77")
	del := func(q store.Querier) error {
		_, err := q.ExecContext(ctx, `DELETE FROM member_passwords WHERE project_id = $1 AND email_address = $2`,
			e.Project.Project.ID, "ada@acme.test")
		return err
	}
	r := migrateDuring(t, e, del, org.OrganizationID, hash)
	wantImported(t, e, org, "ada@acme.test", r)
	if n := e.Count(`SELECT COUNT(*) FROM member_passwords WHERE email_address = $1`, "ada@acme.test"); n != 1 {
		t.Fatalf("%d passwords for the address, want 1", n)
	}
}

// A login's hash upgrade (replaceHash, conditional on the old hash) held
// open while a migrate re-imports that same old hash: the migrate waits,
// reads the upgraded hash, and replaces it as a change; the login's
// session, opened with the old hash, ends. Sequential order gives the
// same. The import must win either way (no lost update).
func TestMigrateDuringHashUpgrade(t *testing.T) {
	t.Parallel()
	e, org, hash := migrateRace(t)
	ctx := t.Context()
	e.CreateMember(org.OrganizationID, "ada@acme.test")
	r := e.Backend(http.MethodPost, "/v1/b2b/passwords/migrate", map[string]any{"organization_id": org.OrganizationID,
		"email_address": "ada@acme.test", "hash": hash, "hash_type": "bcrypt"})
	apptest.Want(t, r, 200, "")
	upgraded, err := pwhash.Hash(ctx, apptest.StrongPassword, pwhash.Params{MemoryKiB: 64, Iterations: 1, Parallelism: 1})
	if err != nil {
		t.Fatal(err)
	}
	upgrade := func(q store.Querier) error {
		_, err := q.ExecContext(ctx, `UPDATE member_passwords SET hash = $1 WHERE project_id = $2 AND email_address = $3`,
			upgraded, e.Project.Project.ID, "ada@acme.test")
		return err
	}
	r = migrateDuring(t, e, upgrade, org.OrganizationID, hash)
	apptest.Want(t, r, 200, "")
	var stored string
	if err := e.App.DB.Read().QueryRowContext(ctx, `SELECT hash FROM member_passwords WHERE email_address = $1`,
		"ada@acme.test").Scan(&stored); err != nil {
		t.Fatal(err)
	}
	if stored == upgraded {
		t.Fatal("the migrate's hash was lost under the concurrent upgrade")
	}
	if l := e.PasswordLogin(org.OrganizationID, "ada@acme.test", apptest.StrongPassword); l.Status != 200 {
		t.Fatalf("login after: %s", l.Raw)
	}
}

// A migrate arriving while a deletion of the address's member is open
// reads the member active, waits for its row, and must then see the
// deletion: refused as a migrate after the deletion is (inactive_member),
// with no password stored.
func TestMigrateDuringMemberDeletion(t *testing.T) {
	t.Parallel()
	e, org, hash := migrateRace(t)
	ctx := t.Context()
	ada := e.CreateMember(org.OrganizationID, "ada@acme.test")
	del := func(q store.Querier) error {
		_, err := q.ExecContext(ctx, `UPDATE members SET status = 'deleted' WHERE member_id = $1`, ada)
		return err
	}
	r := migrateDuring(t, e, del, org.OrganizationID, hash)
	apptest.Want(t, r, 403, "inactive_member")
	if n := e.Count(`SELECT COUNT(*) FROM member_passwords WHERE email_address = $1`, "ada@acme.test"); n != 0 {
		t.Fatal("a migrate for a deleted member stored a password")
	}
}
