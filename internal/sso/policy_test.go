package sso_test

import (
	"net/http"
	"testing"

	"github.com/latchkey/latchkey/internal/apptest"
)

// TestSSOCompletionSeam: an SSO login goes through the same completion as
// every method, so the organization's MFA policy and auth-method
// restriction apply to it.
func TestSSOCompletionSeam(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		s := newSAMLEnv(t, e, map[string]any{"mfa_policy": "REQUIRED_FOR_ALL"})
		s.idp.login("ada@acme.test", "okta-user-1", "Ada", "Lovelace")
		acs, form := s.idp.follow(s.start(nil))
		r := s.SDK(http.MethodPost, "/b2b/sso/authenticate", map[string]any{"sso_token": tokenFrom(t, s.post(acs, form))}, "")
		apptest.Want(t, r, 200, "")
		d := r.Data()
		if d["member_session"] != nil || d["intermediate_session_token"] == "" || d["mfa_required"] == nil || d["member_authenticated"] != false {
			t.Fatalf("MFA after SSO: %s", r.Raw)
		}

		// Restricted to magic links: SSO is not enough.
		r = e.Backend(http.MethodPut, "/v1/b2b/organizations/"+s.orgID, map[string]any{"mfa_policy": "OPTIONAL",
			"auth_methods": "RESTRICTED", "allowed_auth_methods": []string{"magic_link"}})
		apptest.Want(t, r, 200, "")
		acs, form = s.idp.follow(s.start(nil))
		r = s.SDK(http.MethodPost, "/b2b/sso/authenticate", map[string]any{"sso_token": tokenFrom(t, s.post(acs, form))}, "")
		apptest.Want(t, r, 200, "")
		pr, _ := r.Data()["primary_required"].(map[string]any)
		if r.Data()["member_session"] != nil || pr == nil || pr["allowed_auth_methods"].([]any)[0] != "magic_link" {
			t.Fatalf("primary_required after SSO: %s", r.Raw)
		}
	})
}
