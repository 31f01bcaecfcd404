package apptest

import (
	"net/http"
	"sort"
	"sync/atomic"
	"testing"

	"github.com/latchkey/latchkey/internal/organization"
	"github.com/latchkey/latchkey/internal/store"
	"github.com/latchkey/latchkey/internal/store/storetest"
)

// MemberByID reads a member through the backend.
func (e *Env) MemberByID(org, memberID string) map[string]any {
	e.tb().Helper()
	r := e.Backend(http.MethodGet, "/v1/b2b/organizations/"+org+"/member?member_id="+memberID, nil)
	if r.Status != 200 {
		e.tb().Fatalf("apptest: get member: %s", r.Raw)
	}
	return r.Body["member"].(map[string]any)
}

// PasswordID returns a member's member_password_id as the backend sees it.
func (e *Env) PasswordID(org, memberID string) string {
	e.tb().Helper()
	id, _ := e.MemberByID(org, memberID)["member_password_id"].(string)
	return id
}

// DeleteMember deletes a member through the backend, which must succeed.
func (e *Env) DeleteMember(org, memberID string) {
	e.tb().Helper()
	if r := e.Backend(http.MethodDelete, "/v1/b2b/organizations/"+org+"/members/"+memberID, nil); r.Status != 200 {
		e.tb().Fatalf("apptest: delete member: %s", r.Raw)
	}
}

// EmailsOf runs a member search and returns the addresses found, sorted.
func (e *Env) EmailsOf(body map[string]any) ([]string, Resp) {
	e.tb().Helper()
	r := e.Backend(http.MethodPost, "/v1/b2b/organizations/members/search", body)
	if r.Status != 200 {
		e.tb().Fatalf("apptest: member search %v: %s", body, r.Raw)
	}
	var out []string
	for _, m := range r.Body["members"].([]any) {
		out = append(out, m.(map[string]any)["email_address"].(string))
	}
	sort.Strings(out)
	return out, r
}

// Filter is one operand of a search query.
func Filter(name string, value any) map[string]any {
	return map[string]any{"filter_name": name, "filter_value": value}
}

// Query is a search body: operator ("AND", "OR") over the operands.
func Query(operator string, operands ...map[string]any) map[string]any {
	return map[string]any{"query": map[string]any{"operator": operator, "operands": operands}}
}

// MeFixture: organization Acme with an admin and a plain member, and
// organization Beta with its own admin, all logged in (sessions by email
// code).
type MeFixture struct {
	Acme, Beta                string
	AdminID, PlainID, BetaID  string
	Admin, Plain, BetaSession string
}

// NewMeFixture builds a MeFixture.
func (e *Env) NewMeFixture() *MeFixture {
	e.tb().Helper()
	f := &MeFixture{Acme: e.CreateOrg("acme", "NOT_ALLOWED", nil), Beta: e.CreateOrg("beta", "NOT_ALLOWED", nil)}
	mk := func(org, email string, admin bool) string {
		r := e.Backend(http.MethodPost, "/v1/b2b/organizations/"+org+"/members", map[string]any{"email_address": email, "is_admin": admin})
		if r.Status != 200 {
			e.tb().Fatalf("apptest: create member: %s", r.Raw)
		}
		return r.Body["member_id"].(string)
	}
	f.AdminID, f.PlainID, f.BetaID = mk(f.Acme, "ada@acme.test", true), mk(f.Acme, "bob@acme.test", false), mk(f.Beta, "cy@beta.test", true)
	f.Admin, f.Plain, f.BetaSession = e.SessionFor(f.Acme, "ada@acme.test"), e.SessionFor(f.Acme, "bob@acme.test"), e.SessionFor(f.Beta, "cy@beta.test")
	return f
}

// StartEmailUpdate calls the SDK's start_email_update: for the session's
// own member when memberID is "", else through the {member_id} route.
func (e *Env) StartEmailUpdate(session, memberID string, body map[string]any) Resp {
	e.tb().Helper()
	path := "/b2b/organizations/members/start_email_update"
	if memberID != "" {
		path = "/b2b/organizations/members/" + memberID + "/start_email_update"
	}
	return e.SDK(http.MethodPost, path, body, session)
}

// ForceAddress points a member at another address straight in the
// database, as no route does without also ending what the old address
// held (organization.AddressHolder): tests use it to show that a secret
// checks the address itself.
func (e *Env) ForceAddress(memberID, email string) {
	e.tb().Helper()
	if _, err := e.App.DB.ExecContext(e.tb().Context(), `UPDATE members SET email_address = $1 WHERE member_id = $2`, email, memberID); err != nil {
		e.tb().Fatal(err)
	}
}

// ChangeAddressIn is an admin's change of a member's address inside q,
// as the member routes make it (organization.UpdateMember): it ends, in
// q, what the old address held. Tests hold q open with storetest.Overlap
// to race a login or a secret's issue against the change.
func (e *Env) ChangeAddressIn(q store.Querier, orgID, memberID, email string) error {
	ctx := e.tb().Context()
	org, err := e.App.Orgs.GetIn(ctx, q, e.Project.Project.ID, orgID)
	if err != nil {
		return err
	}
	_, err = e.App.Orgs.UpdateMember(ctx, q, org, e.Project.Project.Env, memberID, organization.MemberUpdate{EmailAddress: &email})
	return err
}

// LoginDuringAddressChange runs a login's two steps in one transaction,
// spend (the one-time secret) and then complete (the session, which writes
// the member's row), with an admin's address change of memberID to email
// landing between them (storetest.Interleave, PostgreSQL). The test fails
// unless both succeeded and each ran once: taking the two rows in
// opposite orders they deadlock, PostgreSQL aborts one after
// deadlock_timeout and store.Tx runs it again.
func (e *Env) LoginDuringAddressChange(t *testing.T, orgID, memberID, email string, spend, complete func(q store.Querier) error) {
	t.Helper()
	var logins, changes atomic.Int32
	loginErr, changeErr := storetest.Interleave(t, e.App.DB,
		func(q store.Querier) error {
			logins.Add(1)
			return spend(q)
		},
		func() error {
			return e.App.DB.Tx(t.Context(), func(q store.Querier) error {
				changes.Add(1)
				return e.ChangeAddressIn(q, orgID, memberID, email)
			})
		},
		complete)
	if loginErr != nil || changeErr != nil {
		t.Fatalf("login: %v; change: %v", loginErr, changeErr)
	}
	if logins.Load() != 1 || changes.Load() != 1 {
		t.Fatalf("the login ran %d times and the change %d times: they deadlocked and one was retried", logins.Load(), changes.Load())
	}
}

// DuringProvisioning runs request (a login, or a creation of a member,
// of email in orgID) while another login's just-in-time creation of the
// member (organization.ProvisionMember) is held open in its transaction
// (storetest.Overlap, PostgreSQL): both found no member and both create
// one. The test fails unless the organization ends with the one member.
func (e *Env) DuringProvisioning(t *testing.T, orgID, email string, request func()) {
	t.Helper()
	ctx := t.Context()
	provision := func(q store.Querier) error {
		org, err := e.App.Orgs.GetIn(ctx, q, e.Project.Project.ID, orgID)
		if err != nil {
			return err
		}
		_, _, err = e.App.Orgs.ProvisionMember(ctx, q, org, e.Project.Project.Env,
			organization.NewMember{Email: email, Status: organization.StatusActive})
		return err
	}
	if _, err := storetest.Overlap(t, e.App.DB, provision, func() error { request(); return nil }); err != nil {
		t.Fatal(err)
	}
	if n := e.Count(`SELECT COUNT(*) FROM members WHERE organization_id = $1`, orgID); n != 1 {
		t.Fatalf("%d members of the organization, want the one", n)
	}
}

// AdminWithMule sets up the forgery the address rules stop: in a new
// organization (evilco), an admin (boss@evil.test, whose session is
// returned) creates a member, the mule (mule@evil.test), whose inbox the
// admin controls, and may then point the mule at anyone's address.
func (e *Env) AdminWithMule() (org, admin, mule string) {
	e.tb().Helper()
	org = e.CreateOrg("evilco", "ALL_ALLOWED", nil)
	e.CreateAdmin(org, "boss@evil.test")
	admin = e.SessionFor(org, "boss@evil.test")
	r := e.SDK(http.MethodPost, "/b2b/organizations/members", map[string]any{"email_address": "mule@evil.test"}, admin)
	if r.Status != 200 {
		e.tb().Fatalf("apptest: create the mule: %d %s", r.Status, r.Raw)
	}
	return org, admin, r.Data()["member_id"].(string)
}
