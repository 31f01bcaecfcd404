package magiclink_test

import (
	"net/http"
	"testing"

	"github.com/latchkey/latchkey/internal/apptest"
	"github.com/latchkey/latchkey/internal/organization"
	"github.com/latchkey/latchkey/internal/store"
	"github.com/latchkey/latchkey/internal/store/storetest"
)

// Inviting an address twice resends the invitation (TestInviteStatusesAndPolicy).
// Two invitations of a new address at once (a double click, a bulk
// import retried) both find no member and both create one; the second
// must still answer as if it had come second, not duplicate_member_email
// from the unique index. In each test the first creation of the member
// (the real store code) is held open in its transaction while the second
// request runs (storetest.Overlap; SQLite has one writer, so the second
// would only wait and then find the member).

// raceOrg is a PostgreSQL server with an organization that admits
// invitations and email JIT signups of acme.test, and the organization.
func raceOrg(t *testing.T) (*apptest.Env, *organization.Organization) {
	t.Helper()
	e := apptest.New(t, apptest.Postgres(t), nil)
	orgID := e.CreateOrg("acme", "ALL_ALLOWED", nil)
	org, err := e.App.Orgs.Get(t.Context(), e.Project.Project.ID, orgID)
	if err != nil {
		t.Fatal(err)
	}
	return e, org
}

// wantOneMember fails unless the organization has the one member with
// email, in status, and returns its id.
func wantOneMember(t *testing.T, e *apptest.Env, orgID, email, status string) string {
	t.Helper()
	if n := e.Count(`SELECT COUNT(*) FROM members WHERE organization_id = $1`, orgID); n != 1 {
		t.Fatalf("%d members of the organization, want the one", n)
	}
	m, err := e.App.Orgs.MemberByEmail(t.Context(), e.App.DB.Read(), orgID, email)
	if err != nil {
		t.Fatal(err)
	}
	if m.Status != status {
		t.Fatalf("member status %q, want %q", m.Status, status)
	}
	return m.MemberID
}

// A backend invite while another invite of the address creates its
// member: the second re-invites that member and sends its link.
func TestInvitesOfOneNewAddressAtOnce(t *testing.T) {
	t.Parallel()
	e, org := raceOrg(t)
	ctx := t.Context()
	var first *organization.Member
	inviteIn := func(q store.Querier) (err error) {
		first, err = e.App.Orgs.InviteMember(ctx, q, org, e.Project.Project.Env, organization.Invitation{Email: "nia@acme.test"})
		return err
	}
	var r apptest.Resp
	if err, _ := storetest.Overlap(t, e.App.DB, inviteIn, func() error {
		r = invite(e, map[string]any{"organization_id": org.OrganizationID, "email_address": "nia@acme.test", "name": "Nia"})
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	apptest.Want(t, r, 200, "")
	id := wantOneMember(t, e, org.OrganizationID, "nia@acme.test", organization.StatusInvited)
	if r.Body["member_id"] != id || id != first.MemberID {
		t.Fatalf("second invite answered member %v; the first created %s", r.Body["member_id"], first.MemberID)
	}
	if m := r.Body["member"].(map[string]any); m["name"] != "Nia" {
		t.Fatalf("second invite's name not applied: %v", m)
	}
	if links, _ := e.LastMail("nia@acme.test"); len(links) == 0 {
		t.Fatal("the second invite sent no link")
	}
}

// An admin's SDK invite while a login-or-signup of the address creates
// it as a pending member (email JIT): the invite turns that member into
// an invited one, as it does a pending member found.
func TestSDKInviteDuringASignupOfTheAddress(t *testing.T) {
	t.Parallel()
	e, org := raceOrg(t)
	ctx := t.Context()
	e.CreateAdmin(org.OrganizationID, "boss@acme.test")
	admin := e.SessionFor(org.OrganizationID, "boss@acme.test")
	signup := func(q store.Querier) error {
		_, created, err := e.App.Orgs.MemberForEmailLoginIn(ctx, q, org, e.Project.Project.Env, "nia@acme.test")
		if err == nil && !created {
			t.Error("the signup found a member")
		}
		return err
	}
	var r apptest.Resp
	if err, _ := storetest.Overlap(t, e.App.DB, signup, func() error {
		r = e.SDK(http.MethodPost, "/b2b/magic_links/email/invite", map[string]any{"email_address": "nia@acme.test"}, admin)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	apptest.Want(t, r, 200, "")
	if n := e.Count(`SELECT COUNT(*) FROM members WHERE organization_id = $1 AND email_address = $2`,
		org.OrganizationID, "nia@acme.test"); n != 1 {
		t.Fatalf("%d members with the address, want the one", n)
	}
	m, err := e.App.Orgs.MemberByEmail(ctx, e.App.DB.Read(), org.OrganizationID, "nia@acme.test")
	if err != nil {
		t.Fatal(err)
	}
	if m.Status != organization.StatusInvited || r.Data()["member"].(map[string]any)["member_id"] != m.MemberID {
		t.Fatalf("member %s is %s; the invite answered %s", m.MemberID, m.Status, r.Raw)
	}
}

// An invite while a login creates the address's member active (another
// method's JIT): as when it finds an active member, the invite is refused
// as already active, with that message rather than the unique index's.
func TestInviteDuringAnActiveCreationOfTheAddress(t *testing.T) {
	t.Parallel()
	e, org := raceOrg(t)
	var r apptest.Resp
	e.DuringProvisioning(t, org.OrganizationID, "nia@acme.test", func() {
		r = invite(e, map[string]any{"organization_id": org.OrganizationID, "email_address": "nia@acme.test"})
	})
	apptest.Want(t, r, 400, "duplicate_member_email")
	if msg := r.Body["error_message"]; msg != "This member is already active in the organization." {
		t.Fatalf("error_message %q, want the already-active refusal", msg)
	}
}
