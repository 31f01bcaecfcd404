package discovery_test

import (
	"net/http"
	"testing"

	"github.com/latchkey/latchkey/internal/apptest"
	"github.com/latchkey/latchkey/internal/discovery"
	"github.com/latchkey/latchkey/internal/session"
)

// An organization whose email domain rule admits an address that is a
// deleted member of it cannot take that address in: the exchange finds
// the deleted member and refuses (inactive_member), since the address is
// still theirs there. The list must not offer it as joinable, and the API
// names no membership type for a deleted member, so it is left out.
// Everyone else's entries stay as they were.
func TestDiscoveryOmitsAnOrganizationWhereTheAddressIsDeleted(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		domainCo := e.CreateOrg("domain-co", "RESTRICTED", map[string]any{"email_allowed_domains": []string{"corp.test"}})
		e.DeleteMember(domainCo, e.CreateMember(domainCo, "ada@corp.test"))
		e.CreateVerifiedMember(domainCo, "zoe@corp.test") // vouches for corp.test
		active := e.CreateOrg("active-co", "NOT_ALLOWED", nil)
		e.CreateMember(active, "ada@corp.test")

		d := e.Discover("ada@corp.test")
		if got := apptest.Memberships(d); len(got) != 1 || got["active-co"] != "active_member" {
			t.Fatalf("deleted member's memberships = %v, want only active-co: active_member", got)
		}
		ist := d["intermediate_session_token"].(string)
		r := e.SDK(http.MethodPost, "/b2b/discovery/organizations", map[string]any{"intermediate_session_token": ist}, "")
		if got := apptest.Memberships(r.Data()); len(got) != 1 || got["active-co"] != "active_member" {
			t.Fatalf("listed with the IST: memberships = %v", got)
		}

		// Picking it anyway is refused as before, and leaves the IST usable.
		apptest.Want(t, e.SDK(http.MethodPost, "/b2b/discovery/intermediate_sessions/exchange", map[string]any{
			"intermediate_session_token": ist, "organization_id": domainCo}, ""), 403, "inactive_member")
		apptest.Want(t, e.SDK(http.MethodPost, "/b2b/discovery/intermediate_sessions/exchange", map[string]any{
			"intermediate_session_token": ist, "organization_id": active}, ""), 200, "")

		// Someone else of the domain is still offered it, and joins.
		d = e.Discover("bob@corp.test")
		if got := apptest.Memberships(d); len(got) != 1 || got["domain-co"] != "eligible_to_join_by_email_domain" {
			t.Fatalf("bob's memberships = %v, want domain-co: eligible_to_join_by_email_domain", got)
		}
		apptest.Want(t, e.SDK(http.MethodPost, "/b2b/discovery/intermediate_sessions/exchange", map[string]any{
			"intermediate_session_token": d["intermediate_session_token"], "organization_id": domainCo}, ""), 200, "")
	})
}

// The same holds for an organization that admits the address's OAuth
// tenant: the exchange refuses the deleted member there too. The OAuth
// login itself is the oauth package's; here the discovery service is given
// the factor such a login proves.
func TestDiscoveryOmitsAnOAuthTenantOrganizationWhereTheAddressIsDeleted(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		org := e.CreateOrg("initech", "NOT_ALLOWED", map[string]any{"oauth_tenant_jit_provisioning": "RESTRICTED",
			"allowed_oauth_tenants": map[string]any{"google": []string{"initech.test"}}})
		e.DeleteMember(org, e.CreateMember(org, "peter@initech.test"))
		e.CreateVerifiedMember(org, "bill@initech.test") // vouches for the tenant's domain

		svc := discovery.New(discovery.Deps{DB: e.App.DB, Clock: e.App.Clock, Projects: e.App.Projects, Orgs: e.App.Orgs,
			Sessions: e.App.Sessions, Limiter: e.App.Limiter, Box: e.App.Box})
		discover := func(email string) *discovery.Response {
			t.Helper()
			d, err := svc.Discovered(t.Context(), e.Project.Project, email, session.Factor{Type: "oauth", DeliveryMethod: "oauth_google",
				GoogleOAuthFactor: &session.OAuthFactor{ID: "oauth-member-registration-test", ProviderSubject: email, ProviderTenantID: "initech.test"}})
			if err != nil {
				t.Fatal(err)
			}
			return d
		}

		d := discover("peter@initech.test")
		if len(d.DiscoveredOrganizations) != 0 {
			t.Fatalf("deleted member discovered %+v", d.DiscoveredOrganizations[0].Membership)
		}
		apptest.Want(t, e.SDK(http.MethodPost, "/b2b/discovery/intermediate_sessions/exchange", map[string]any{
			"intermediate_session_token": d.IntermediateSessionToken, "organization_id": org}, ""), 403, "inactive_member")

		d = discover("michael@initech.test")
		if len(d.DiscoveredOrganizations) != 1 || d.DiscoveredOrganizations[0].Membership.Type != discovery.EligibleByOAuth {
			t.Fatalf("another member of the tenant discovered %+v", d.DiscoveredOrganizations)
		}
		apptest.Want(t, e.SDK(http.MethodPost, "/b2b/discovery/intermediate_sessions/exchange", map[string]any{
			"intermediate_session_token": d.IntermediateSessionToken, "organization_id": org}, ""), 200, "")
	})
}
