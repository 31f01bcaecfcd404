package session_test

import (
	"net/http"
	"testing"

	"github.com/latchkey/latchkey/internal/apptest"
)

// ssoOnlyOrg is an organization whose auth_methods are RESTRICTED to SSO,
// with a break-glass member (glass@sso-only.test, marked through the
// backend's members update) and an ordinary one (ada@sso-only.test).
func ssoOnlyOrg(t *testing.T, e *apptest.Env) (org, glass string) {
	t.Helper()
	org = e.CreateOrg("sso-only", "NOT_ALLOWED", nil)
	if r := e.Backend(http.MethodPut, "/v1/b2b/organizations/"+org, map[string]any{"auth_methods": "RESTRICTED",
		"allowed_auth_methods": []string{"sso"}}); r.Status != 200 {
		t.Fatalf("restrict to sso: %s", r.Raw)
	}
	glass = e.CreateMember(org, "glass@sso-only.test")
	r := e.Backend(http.MethodPut, "/v1/b2b/organizations/"+org+"/members/"+glass, map[string]any{"is_breakglass": true})
	if r.Status != 200 || r.Body["member"].(map[string]any)["is_breakglass"] != true {
		t.Fatalf("mark break-glass: %s", r.Raw)
	}
	e.CreateMember(org, "ada@sso-only.test")
	return org, glass
}

// A break-glass member is exempt from a RESTRICTED auth_methods, as the
// API family documents: an email code, which the SSO-only organization
// does not accept, gives them a session. An ordinary member of the same
// organization is still answered primary_required.
func TestBreakglassMemberIsExemptFromRestrictedAuthMethods(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		org, glass := ssoOnlyOrg(t, e)

		d := e.EmailLogin(org, "glass@sso-only.test")
		if d["member_authenticated"] != true || d["session_token"] == "" || d["primary_required"] != nil || d["member_id"] != glass {
			t.Fatalf("break-glass member's email code: want a session, got %v", d)
		}
		apptest.WantFactors(t, d, "email_otp/email/PRIMARY")

		d = e.EmailLogin(org, "ada@sso-only.test")
		pr, _ := d["primary_required"].(map[string]any)
		if d["member_authenticated"] != false || d["session_token"] != "" || pr == nil {
			t.Fatalf("ordinary member's email code: want primary_required, got %v", d)
		}
		if got := pr["allowed_auth_methods"].([]any); len(got) != 1 || got[0] != "sso" {
			t.Fatalf("primary_required = %v", pr)
		}
	})
}

// Discovery previews the same rule for a known member: the SSO-only
// organization is listed without primary_required for its break-glass
// member, and with it for an ordinary one; the exchange then agrees.
func TestDiscoveryPreviewsTheBreakglassExemption(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		org, _ := ssoOnlyOrg(t, e)
		entry := func(email string) (map[string]any, string) {
			t.Helper()
			d := e.Discover(email)
			found := d["discovered_organizations"].([]any)
			if len(found) != 1 {
				t.Fatalf("%s discovered %v", email, found)
			}
			return found[0].(map[string]any), d["intermediate_session_token"].(string)
		}
		exchange := func(ist string) map[string]any {
			t.Helper()
			r := e.SDK(http.MethodPost, "/b2b/discovery/intermediate_sessions/exchange",
				map[string]any{"intermediate_session_token": ist, "organization_id": org, "session_duration_minutes": 60}, "")
			apptest.Want(t, r, 200, "")
			return r.Data()
		}

		got, ist := entry("glass@sso-only.test")
		if got["primary_required"] != nil {
			t.Fatalf("break-glass member's entry: primary_required = %v", got["primary_required"])
		}
		if d := exchange(ist); d["session_token"] == "" || d["member_authenticated"] != true {
			t.Fatalf("break-glass member's exchange: %v", d)
		}

		got, ist = entry("ada@sso-only.test")
		if got["primary_required"] == nil {
			t.Fatalf("ordinary member's entry has no primary_required: %v", got)
		}
		if d := exchange(ist); d["session_token"] != "" || d["primary_required"] == nil {
			t.Fatalf("ordinary member's exchange: %v", d)
		}
	})
}
