package organization_test

import (
	"fmt"
	"net/http"
	"testing"

	"github.com/latchkey/latchkey/internal/apptest"
	"github.com/latchkey/latchkey/internal/organization"
	"github.com/latchkey/latchkey/internal/store"
	"github.com/latchkey/latchkey/internal/store/storetest"
)

// raceMember is a PostgreSQL server with one member, ada@acme.test, of
// acme, for the concurrent changes below (SQLite has one writer: a change
// reading inside its write transaction cannot overlap another).
type raceMember struct {
	e   *apptest.Env
	org *organization.Organization
	mid string
}

func newRaceMember(t *testing.T) *raceMember {
	t.Helper()
	e := apptest.New(t, apptest.Postgres(t), nil)
	orgID := e.CreateOrg("acme", "NOT_ALLOWED", nil)
	mid := e.CreateMember(orgID, "ada@acme.test")
	org, err := e.App.Orgs.Get(t.Context(), e.Project.Project.ID, orgID)
	if err != nil {
		t.Fatal(err)
	}
	return &raceMember{e: e, org: org, mid: mid}
}

// changeAddress is an admin's address change to email inside q.
func (r *raceMember) changeAddress(email string) func(q store.Querier) error {
	return func(q store.Querier) error { return r.e.ChangeAddressIn(q, r.org.OrganizationID, r.mid, email) }
}

// want checks a string column of the member.
func (r *raceMember) want(t *testing.T, column, want string) {
	t.Helper()
	var got string
	if err := r.e.App.DB.Read().QueryRowContext(t.Context(), `SELECT `+column+` FROM members WHERE member_id = $1`,
		r.mid).Scan(&got); err != nil {
		t.Fatal(err)
	}
	if got != want {
		t.Fatalf("member %s = %q, want %q", column, got, want)
	}
}

// An admin renames a member while another admin's address change is in
// flight. Every column of the member is written back from what the update
// read: read before the change committed, the rename would put the old
// address back, which the change had ended everything of, and which
// nothing would end again. The update reads the row locked, after the
// change: both survive.
func TestMemberUpdateDuringAddressChangeKeepsBoth(t *testing.T) {
	t.Parallel()
	r := newRaceMember(t)
	changeErr, renameErr := storetest.Overlap(t, r.e.App.DB, r.changeAddress("someone-else@acme.test"), func() error {
		resp := r.e.Backend(http.MethodPut, "/v1/b2b/organizations/"+r.org.OrganizationID+"/members/"+r.mid,
			map[string]any{"name": "Ada Lovelace"})
		if resp.Status != 200 {
			return fmt.Errorf("rename: %d %s", resp.Status, resp.Raw)
		}
		return nil
	})
	if changeErr != nil || renameErr != nil {
		t.Fatalf("change: %v; rename: %v", changeErr, renameErr)
	}
	r.want(t, "email_address", "someone-else@acme.test")
	r.want(t, "name", "Ada Lovelace")
}

// A member's verified email change (ChangeEmail) completing while an
// admin's address change is in flight retires the address it replaces:
// the admin's, not the one it read before the admin's committed (which
// the admin's change retired itself: retiring it again would collide).
func TestEmailChangeDuringAddressChangeRetiresTheReplacedAddress(t *testing.T) {
	t.Parallel()
	r := newRaceMember(t)
	ctx := t.Context()
	changeErr, emailErr := storetest.Overlap(t, r.e.App.DB, r.changeAddress("admin-set@acme.test"), func() error {
		return r.e.App.DB.Tx(ctx, func(q store.Querier) error {
			_, err := r.e.App.Orgs.ChangeEmail(ctx, q, r.org, r.e.Project.Project.Env, r.mid, "ada-new@acme.test")
			return err
		})
	})
	if changeErr != nil || emailErr != nil {
		t.Fatalf("admin change: %v; email change: %v", changeErr, emailErr)
	}
	r.want(t, "email_address", "ada-new@acme.test")
	var retired string
	if err := r.e.App.DB.Read().QueryRowContext(ctx, `SELECT string_agg(email_address, ',' ORDER BY email_address)
		FROM member_retired_emails WHERE member_id = $1`, r.mid).Scan(&retired); err != nil {
		t.Fatal(err)
	}
	if retired != "ada@acme.test,admin-set@acme.test" {
		t.Fatalf("retired %q, want the addresses each change replaced, ada@acme.test (the admin's) and admin-set@acme.test", retired)
	}
}

// An organization's settings are written back from what the update read:
// a concurrent writer's change of the row (here its name) survives an
// update of another setting.
func TestOrganizationUpdateKeepsConcurrentChange(t *testing.T) {
	t.Parallel()
	r := newRaceMember(t)
	rename := func(q store.Querier) error {
		_, err := q.ExecContext(t.Context(), `UPDATE organizations SET organization_name = 'Renamed' WHERE organization_id = $1`,
			r.org.OrganizationID)
		return err
	}
	renameErr, updateErr := storetest.Overlap(t, r.e.App.DB, rename, func() error {
		resp := r.e.Backend(http.MethodPut, "/v1/b2b/organizations/"+r.org.OrganizationID, map[string]any{"mfa_policy": "REQUIRED_FOR_ALL"})
		if resp.Status != 200 {
			return fmt.Errorf("update: %d %s", resp.Status, resp.Raw)
		}
		return nil
	})
	if renameErr != nil || updateErr != nil {
		t.Fatalf("rename: %v; update: %v", renameErr, updateErr)
	}
	o, err := r.e.App.Orgs.Get(t.Context(), r.e.Project.Project.ID, r.org.OrganizationID)
	if err != nil {
		t.Fatal(err)
	}
	if o.OrganizationName != "Renamed" || o.MFAPolicy != "REQUIRED_FOR_ALL" {
		t.Fatalf("name %q, mfa_policy %q: one update undid the other", o.OrganizationName, o.MFAPolicy)
	}
}
