package discovery_test

import (
	"maps"
	"net/http"
	"testing"

	"github.com/latchkey/latchkey/internal/apptest"
	"github.com/latchkey/latchkey/internal/store"
)

// assertMember marks a member's address verified the way an SSO login
// does (the organization's own identity provider asserted it).
func assertMember(t *testing.T, e *apptest.Env, memberID string) {
	t.Helper()
	ctx := t.Context()
	err := e.App.DB.Tx(ctx, func(q store.Querier) error {
		m, err := e.App.Orgs.Member(ctx, q, e.Project.Project.ID, memberID)
		if err != nil {
			return err
		}
		_, err = e.App.Orgs.MarkEmailAsserted(ctx, q, m)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}

// The audit's phishing scenario: a stranger who proved only her own
// mailbox creates "BigCorp" from the browser, allows bigcorp.test with
// email JIT RESTRICTED. Discovery offers an organization to a domain's
// people only when an active member with a proven address at that domain
// vouches for it (the API family's rule), so victim@bigcorp.test is not
// offered hers: not while its only bigcorp.test members are invited or
// pending (her own doing), nor for one whose address only her
// organization's identity provider asserted, nor for a deleted one. A
// member who proved a bigcorp.test address makes it offered; when that
// member's address is changed by an admin, it no longer is.
func TestDomainOfferNeedsAProvenMemberAtTheDomain(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		d := e.Discover("mallory@startup.test")
		r := e.SDK(http.MethodPost, "/b2b/discovery/organizations/create", map[string]any{
			"intermediate_session_token": d["intermediate_session_token"], "organization_name": "BigCorp",
			"organization_slug": "bigcorp", "email_allowed_domains": []string{"bigcorp.test"},
			"email_jit_provisioning": "RESTRICTED", "sso_jit_provisioning": "ALL_ALLOWED", "email_invites": "ALL_ALLOWED",
			"session_duration_minutes": 60}, "")
		apptest.Want(t, r, 200, "")
		fake := r.Data()["organization"].(map[string]any)["organization_id"].(string)
		session := r.Data()["session_token"].(string)

		offered := func() map[string]string { return apptest.Memberships(e.Discover("victim@bigcorp.test")) }
		if got := offered(); len(got) != 0 {
			t.Fatalf("the stranger's organization is offered: %v", got)
		}
		// Her own invitation and a pending member at the domain vouch for
		// nothing: neither has proven anything.
		apptest.Want(t, e.SDK(http.MethodPost, "/b2b/magic_links/email/invite", map[string]any{"email_address": "ceo@bigcorp.test"}, session), 200, "")
		apptest.Want(t, e.Backend(http.MethodPost, "/v1/b2b/organizations/"+fake+"/members", map[string]any{
			"email_address": "cfo@bigcorp.test", "create_member_as_pending": true}), 200, "")
		// Her identity provider can assert any bigcorp.test address.
		assertMember(t, e, e.CreateMember(fake, "cto@bigcorp.test"))
		// A proven member who was deleted is no longer one of them.
		e.DeleteMember(fake, e.CreateVerifiedMember(fake, "ex@bigcorp.test"))
		if got := offered(); len(got) != 0 {
			t.Fatalf("offered on unproven members' word: %v", got)
		}
		// A proven member at the domain vouches for it.
		dana := e.CreateVerifiedMember(fake, "dana@bigcorp.test")
		if got := offered(); !maps.Equal(got, map[string]string{"bigcorp": eligible}) {
			t.Fatalf("with a proven member: %v", got)
		}
		// An admin's change of that member's address leaves it unproven.
		apptest.Want(t, e.Backend(http.MethodPut, "/v1/b2b/organizations/"+fake+"/members/"+dana,
			map[string]any{"email_address": "dana@startup.test"}), 200, "")
		if got := offered(); len(got) != 0 {
			t.Fatalf("offered after the vouching address changed: %v", got)
		}
		// A later proof of an asserted address counts (an email login).
		e.LoginByEmailOTP(fake, "cto@bigcorp.test")
		if got := offered(); !maps.Equal(got, map[string]string{"bigcorp": eligible}) {
			t.Fatalf("after the asserted member proved the address: %v", got)
		}
	})
}

// A password login proves the address (every password came through the
// inbox or the customer's backend), at every login and not only the first:
// a member whose address only the organization's own SSO provider asserted
// vouches for the domain once they log in with the address's password,
// set here through another organization.
func TestPasswordLoginProvesAnAssertedAddress(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		acme := e.CreateOrg("acme", "RESTRICTED", map[string]any{"email_allowed_domains": []string{"bigcorp.test"}})
		other := e.CreateOrg("other", "NOT_ALLOWED", nil)
		assertMember(t, e, e.CreateMember(acme, "cto@bigcorp.test"))
		e.CreateMember(other, "cto@bigcorp.test")
		e.SetPassword(other, "cto@bigcorp.test", apptest.StrongPassword)
		if got := apptest.Memberships(e.Discover("victim@bigcorp.test")); len(got) != 0 {
			t.Fatalf("offered on an asserted address: %v", got)
		}
		apptest.Want(t, e.PasswordLogin(acme, "cto@bigcorp.test", apptest.StrongPassword), 200, "")
		if got := apptest.Memberships(e.Discover("victim@bigcorp.test")); !maps.Equal(got, map[string]string{"acme": eligible}) {
			t.Fatalf("after a password login: %v", got)
		}
	})
}
