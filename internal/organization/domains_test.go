package organization_test

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/latchkey/latchkey/internal/apptest"
)

// storeDomains writes an organization's email_allowed_domains straight to
// the database, as an organization created before common mail domains
// were refused may hold them.
func storeDomains(t *testing.T, e *apptest.Env, org string, domains ...string) {
	t.Helper()
	raw, _ := json.Marshal(domains)
	if _, err := e.App.DB.ExecContext(t.Context(), `UPDATE organizations SET email_allowed_domains = $1 WHERE organization_id = $2`,
		string(raw), org); err != nil {
		t.Fatal(err)
	}
}

func allowedDomains(t *testing.T, e *apptest.Env, org string) string {
	t.Helper()
	raw, _ := json.Marshal(e.Backend(http.MethodGet, "/v1/b2b/organizations/"+org, nil).Body["organization"].(map[string]any)["email_allowed_domains"])
	return string(raw)
}

// A shared mail provider's domain (anyone can have an address there) is
// refused in email_allowed_domains with the API family's
// organization_settings_domain_too_common, on create and update, from the
// backend and from an admin's browser session; in an RBAC email implicit
// role assignment with rbac_domain_too_common. Nothing is written.
func TestCommonMailDomainsAreRefused(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		apptest.Want(t, e.Backend(http.MethodPost, "/v1/b2b/organizations", map[string]any{"organization_name": "Free",
			"organization_slug": "free", "email_jit_provisioning": "RESTRICTED", "email_allowed_domains": []string{"Gmail.com"}}),
			400, "organization_settings_domain_too_common")
		if n := e.Count(`SELECT COUNT(*) FROM organizations WHERE organization_slug = 'free'`); n != 0 {
			t.Fatalf("%d organizations created with gmail.com", n)
		}

		f := e.NewMeFixture()
		path := "/v1/b2b/organizations/" + f.Acme
		for _, domains := range [][]string{{"gmail.com"}, {"acme.test", "outlook.com"}, {"gmx.de"}, {"yahoo.co.jp"}, {"proton.me"}, {"qq.com"}} {
			r := e.Backend(http.MethodPut, path, map[string]any{"email_allowed_domains": domains, "email_jit_provisioning": "RESTRICTED"})
			apptest.Want(t, r, 400, "organization_settings_domain_too_common")
			if d, _ := r.Body["error_details"].(map[string]any); d["field"] != "email_allowed_domains" {
				t.Fatalf("%v: error_details = %v", domains, r.Body["error_details"])
			}
		}
		apptest.Want(t, e.SDK(http.MethodPut, "/b2b/organizations/me", map[string]any{"email_allowed_domains": []string{"gmail.com"},
			"email_jit_provisioning": "RESTRICTED"}, f.Admin), 400, "organization_settings_domain_too_common")
		if got := allowedDomains(t, e, f.Acme); got != `[]` {
			t.Fatalf("refused updates stored domains %s", got)
		}

		for _, domain := range []string{"hotmail.com", "yandex.ru"} {
			apptest.Want(t, e.Backend(http.MethodPut, path, map[string]any{"rbac_email_implicit_role_assignments": []any{
				map[string]any{"role_id": "stytch_admin", "domain": domain}}}), 400, "rbac_domain_too_common")
		}

		// The organization's own domain, and one merely named like a
		// provider, are fine.
		apptest.Want(t, e.Backend(http.MethodPut, path, map[string]any{"email_allowed_domains": []string{"acme.test", "gmail.acme.test"},
			"rbac_email_implicit_role_assignments": []any{map[string]any{"role_id": "stytch_admin", "domain": "acme.test"}}}), 200, "")
	})
}

// What is not an email domain at all gets the API family's
// organization_settings_invalid_domain, and rbac_invalid_domain in an
// implicit role assignment; an assignment without a domain is still an
// invalid_request, like one without a role. A repeated domain is merged,
// as before (TestOrganizationSettingRules).
func TestInvalidDomainsUseTheFamilysTypes(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		org := e.CreateOrg("acme", "NOT_ALLOWED", nil)
		path := "/v1/b2b/organizations/" + org
		for _, bad := range []string{"not a domain", "", "acme", "x@acme.test"} {
			apptest.Want(t, e.Backend(http.MethodPut, path, map[string]any{"email_allowed_domains": []string{bad}}),
				400, "organization_settings_invalid_domain")
		}
		apptest.Want(t, e.Backend(http.MethodPost, "/v1/b2b/organizations", map[string]any{"organization_name": "Bad",
			"organization_slug": "bad", "email_allowed_domains": []string{"bad domain"}}), 400, "organization_settings_invalid_domain")
		apptest.Want(t, e.Backend(http.MethodPut, path, map[string]any{"rbac_email_implicit_role_assignments": []any{
			map[string]any{"role_id": "stytch_admin", "domain": "not a domain"}}}), 400, "rbac_invalid_domain")
		apptest.Want(t, e.Backend(http.MethodPut, path, map[string]any{"rbac_email_implicit_role_assignments": []any{
			map[string]any{"role_id": "stytch_admin"}}}), 400, "invalid_request")
	})
}

// An organization that stored a common domain before the rule keeps it
// (no migration): an update that does not send email_allowed_domains
// passes, one that sends the list must follow the rule, and dropping the
// domain is always possible.
func TestStoredCommonDomainsStayUntilTheListIsWritten(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		org := e.CreateOrg("legacy", "RESTRICTED", map[string]any{"email_allowed_domains": []string{"legacy.test"}})
		storeDomains(t, e, org, "legacy.test", "gmail.com")
		path := "/v1/b2b/organizations/" + org

		r := e.Backend(http.MethodPut, path, map[string]any{"organization_name": "Legacy Inc", "mfa_policy": "OPTIONAL"})
		apptest.Want(t, r, 200, "")
		if got := allowedDomains(t, e, org); got != `["legacy.test","gmail.com"]` {
			t.Fatalf("an update that did not send the list changed it: %s", got)
		}

		apptest.Want(t, e.Backend(http.MethodPut, path, map[string]any{"email_allowed_domains": []string{"legacy.test", "gmail.com"}}),
			400, "organization_settings_domain_too_common")
		apptest.Want(t, e.Backend(http.MethodPut, path, map[string]any{"email_allowed_domains": []string{"legacy.test"}}), 200, "")
		if got := allowedDomains(t, e, org); got != `["legacy.test"]` {
			t.Fatalf("domains = %s", got)
		}
	})
}
