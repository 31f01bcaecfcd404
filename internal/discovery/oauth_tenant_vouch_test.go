package discovery_test

import (
	"maps"
	"net/http"
	"testing"

	"github.com/latchkey/latchkey/internal/apptest"
	"github.com/latchkey/latchkey/internal/discovery"
	"github.com/latchkey/latchkey/internal/session"
)

const byTenant = "eligible_to_join_by_oauth_tenant"

// oauthDiscover runs discovery for email as an OAuth login of provider
// whose account is in tenant would, and returns the IST and the
// organizations offered (slug -> membership type).
func oauthDiscover(t *testing.T, e *apptest.Env, provider, email, subject, tenant string) (string, map[string]string) {
	t.Helper()
	svc := discovery.New(discovery.Deps{DB: e.App.DB, Clock: e.App.Clock, Projects: e.App.Projects, Orgs: e.App.Orgs,
		Sessions: e.App.Sessions, Limiter: e.App.Limiter, Box: e.App.Box})
	of := &session.OAuthFactor{ProviderSubject: subject, ProviderTenantID: tenant}
	f := session.Factor{Type: "oauth", DeliveryMethod: "oauth_" + provider}
	switch provider {
	case "google":
		f.GoogleOAuthFactor = of
	case "microsoft":
		f.MicrosoftOAuthFactor = of
	default:
		t.Fatalf("no factor for %s", provider)
	}
	d, err := svc.Discovered(t.Context(), e.Project.Project, email, f)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, o := range d.DiscoveredOrganizations {
		out[o.Organization.OrganizationSlug] = o.Membership.Type
	}
	return d.IntermediateSessionToken, out
}

// The audit's scenario for OAuth tenants. A stranger who proved only her
// own mailbox creates "BigCorp" with OAuth tenant JIT RESTRICTED to
// Google's bigcorp.test (hd, the Workspace domain). Every bigcorp.test
// Google user who runs OAuth discovery was offered it, despite the real
// organization's claim of the domain, and exchanging joined them. Now an
// organization is offered (and admitted) by a tenant only when vouched for
// at it: the real one claims the domain; hers does not, and the claim
// rules her out even once one of her members proves a bigcorp.test
// address.
func TestOAuthTenantOfferNeedsAVouch(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		r := e.SDK(http.MethodPost, "/b2b/discovery/organizations/create", map[string]any{
			"intermediate_session_token":    e.Discover("mallory@startup.test")["intermediate_session_token"],
			"organization_name":             "BigCorp",
			"organization_slug":             "bigcorp-phish",
			"oauth_tenant_jit_provisioning": "RESTRICTED",
			"allowed_oauth_tenants":         map[string]any{"google": []string{"bigcorp.test"}},
			"session_duration_minutes":      60,
		}, "")
		apptest.Want(t, r, 200, "")
		fake := r.Data()["organization"].(map[string]any)["organization_id"].(string)

		// Without the real organization, nobody vouches for hers.
		// The exchange does not admit by the tenant (and her email JIT is
		// off), nor is her organization offered.
		ist, got := oauthDiscover(t, e, "google", "victim@bigcorp.test", "g-victim", "bigcorp.test")
		apptest.Want(t, exchange(e, ist, fake), 403, "email_jit_provisioning_not_allowed")
		if len(got) != 0 {
			t.Fatalf("the stranger's organization is offered: %v", got)
		}

		// The real organization claims its domain (its people log in by
		// SSO or Google, so it has no member with a proven address).
		real := e.CreateOrg("bigcorp", "NOT_ALLOWED", map[string]any{"claimed_email_domains": []string{"bigcorp.test"},
			"oauth_tenant_jit_provisioning": "RESTRICTED", "allowed_oauth_tenants": map[string]any{"google": []string{"bigcorp.test"}}})
		// A member of hers proving a bigcorp.test address would vouch,
		// but the claim rules her out.
		e.CreateVerifiedMember(fake, "insider@bigcorp.test")
		ist, got = oauthDiscover(t, e, "google", "victim@bigcorp.test", "g-victim", "bigcorp.test")
		if !maps.Equal(got, map[string]string{"bigcorp": byTenant}) {
			t.Fatalf("offered: %v, want the real organization alone", got)
		}
		apptest.Want(t, exchange(e, ist, fake), 403, "action_not_allowed_email_domain_is_claimed")
		r = exchange(e, ist, real)
		apptest.Want(t, r, 200, "")
		if r.Data()["member_session"] == nil {
			t.Fatalf("exchange into the real organization: %s", r.Raw)
		}
	})
}

// An organization is vouched for at a tenant by an active member holding
// an OAuth registration of the provider in that tenant: only the provider
// can have put the account there. A tenant of Google is a domain, and an
// active member proving an address at it vouches too, where no other
// organization claims it.
func TestOAuthTenantOfferedWhenVouched(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		org := e.CreateOrg("initech", "NOT_ALLOWED", map[string]any{"oauth_tenant_jit_provisioning": "RESTRICTED",
			"allowed_oauth_tenants": map[string]any{"google": []string{"initech.test"}, "microsoft": []string{"tid-initech"}}})
		bill := e.CreateVerifiedMember(org, "bill@lumbergh.test")
		offered := func(provider, tenant string) map[string]string {
			_, got := oauthDiscover(t, e, provider, "peter@initech.test", "s-peter", tenant)
			return got
		}
		for provider, tenant := range map[string]string{"google": "initech.test", "microsoft": "tid-initech"} {
			if got := offered(provider, tenant); len(got) != 0 {
				t.Fatalf("%s: offered unvouched: %v", provider, got)
			}
		}

		// Bill logs in with his Microsoft account of the tenant (discovery
		// registers it to him as the session starts).
		ist, _ := oauthDiscover(t, e, "microsoft", "bill@lumbergh.test", "ms-bill", "tid-initech")
		apptest.Want(t, exchange(e, ist, org), 200, "")
		if got := offered("microsoft", "tid-initech"); !maps.Equal(got, map[string]string{"initech": byTenant}) {
			t.Fatalf("microsoft, vouched by a registration: %v", got)
		}
		if got := offered("microsoft", "tid-other"); len(got) != 0 {
			t.Fatalf("another tenant: %v", got)
		}
		// A registration in another provider's tenant vouches for nothing
		// there, and a deleted member's for nothing at all.
		if got := offered("google", "initech.test"); len(got) != 0 {
			t.Fatalf("google, vouched by a microsoft registration: %v", got)
		}
		e.DeleteMember(org, bill)
		if got := offered("microsoft", "tid-initech"); len(got) != 0 {
			t.Fatalf("vouched by a deleted member: %v", got)
		}

		// Google's tenant is a domain: a proven member there vouches.
		e.CreateVerifiedMember(org, "joanna@initech.test")
		ist, got := oauthDiscover(t, e, "google", "peter@initech.test", "g-peter", "initech.test")
		if !maps.Equal(got, map[string]string{"initech": byTenant}) {
			t.Fatalf("google, vouched by a proven address: %v", got)
		}
		r := exchange(e, ist, org)
		apptest.Want(t, r, 200, "")
		if r.Data()["member_session"] == nil {
			t.Fatalf("exchange: %s", r.Raw)
		}
	})
}

// Every personal Microsoft account shares one tenant id: a member's
// personal account there vouches for nothing, or an organization allowing
// that tenant would be offered to every personal account.
func TestMicrosoftConsumerTenantNeverVouches(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		const consumers = "9188040d-6c67-4c5b-b112-36a304b66dad"
		// Settings refuse that tenant now; an organization may hold it from
		// before they did.
		org := e.CreateOrg("personal", "NOT_ALLOWED", map[string]any{"oauth_tenant_jit_provisioning": "RESTRICTED",
			"allowed_oauth_tenants": map[string]any{"microsoft": []string{"placeholder-tid"}}})
		if _, err := e.App.DB.ExecContext(t.Context(), `UPDATE organizations SET allowed_oauth_tenants = $1 WHERE organization_id = $2`,
			`{"microsoft":["`+consumers+`"]}`, org); err != nil {
			t.Fatal(err)
		}
		e.CreateVerifiedMember(org, "mallory@outlook.test")
		ist, _ := oauthDiscover(t, e, "microsoft", "mallory@outlook.test", "ms-mallory", consumers)
		apptest.Want(t, exchange(e, ist, org), 200, "")
		if _, got := oauthDiscover(t, e, "microsoft", "victim@hotmail.test", "ms-victim", consumers); len(got) != 0 {
			t.Fatalf("offered by the consumer tenant: %v", got)
		}
	})
}
