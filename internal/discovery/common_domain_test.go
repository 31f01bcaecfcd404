package discovery_test

import (
	"net/http"
	"testing"

	"github.com/latchkey/latchkey/internal/apptest"
)

// An organization may have stored a shared mail provider's domain as a
// RESTRICTED allowed domain before settings refused it (written here with
// SQL, since the API no longer accepts it). The project's gmail.com users
// are not offered it as eligible, may create their own organization and
// may join another one; an ordinary domain of the same organization is
// still offered. (Allowed domains claim nothing: claimed_domain_test.go.)
func TestStoredCommonDomainClaimsNothing(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		legacy := e.CreateOrg("legacy", "RESTRICTED", map[string]any{"email_allowed_domains": []string{"legacy.test"}})
		if _, err := e.App.DB.ExecContext(t.Context(), `UPDATE organizations SET email_allowed_domains = $1 WHERE organization_id = $2`,
			`["legacy.test","gmail.com"]`, legacy); err != nil {
			t.Fatal(err)
		}
		// Members with proven addresses at both domains: the shared
		// provider's domain is refused for what it is, not for want of one.
		e.CreateVerifiedMember(legacy, "lee@legacy.test")
		e.CreateVerifiedMember(legacy, "lee.home@gmail.com")
		open := e.CreateOrg("open-co", "ALL_ALLOWED", nil)

		d := e.Discover("someone@gmail.com")
		if found := d["discovered_organizations"].([]any); len(found) != 0 {
			t.Fatalf("gmail.com user discovered %v", found)
		}
		r := e.SDK(http.MethodPost, "/b2b/discovery/organizations/create", map[string]any{"intermediate_session_token": d["intermediate_session_token"],
			"session_duration_minutes": 60}, "")
		apptest.Want(t, r, 200, "")
		// Named after the person, not the provider.
		if name := r.Data()["organization"].(map[string]any)["organization_name"]; name != "someone's Organization" {
			t.Fatalf("organization_name = %v", name)
		}

		d = e.Discover("other@gmail.com")
		apptest.Want(t, e.SDK(http.MethodPost, "/b2b/discovery/intermediate_sessions/exchange", map[string]any{
			"intermediate_session_token": d["intermediate_session_token"], "organization_id": open}, ""), 200, "")

		d = e.Discover("x@legacy.test")
		if apptest.Memberships(d)["legacy"] != "eligible_to_join_by_email_domain" {
			t.Fatalf("legacy.test user: memberships = %v", apptest.Memberships(d))
		}
	})
}

// Discovery's organization create sets email_allowed_domains only when the
// caller sends them (nothing is derived from the creator's address), so a
// common domain sent there is refused as on any other create.
func TestDiscoveryCreateRefusesACommonAllowedDomain(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		d := e.Discover("founder@outlook.com")
		apptest.Want(t, e.SDK(http.MethodPost, "/b2b/discovery/organizations/create", map[string]any{"intermediate_session_token": d["intermediate_session_token"],
			"email_allowed_domains": []string{"outlook.com"}, "email_jit_provisioning": "RESTRICTED"}, ""), 400, "organization_settings_domain_too_common")
		r := e.SDK(http.MethodPost, "/b2b/discovery/organizations/create", map[string]any{"intermediate_session_token": d["intermediate_session_token"]}, "")
		apptest.Want(t, r, 200, "")
		o := r.Data()["organization"].(map[string]any)
		if o["organization_name"] != "founder's Organization" || len(o["email_allowed_domains"].([]any)) != 0 {
			t.Fatalf("created organization = %v", o)
		}
	})
}
