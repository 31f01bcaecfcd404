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

// TestDiscoverConnections finds active connections by email domain and by
// membership.
func TestDiscoverConnections(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		s := newSAMLEnv(t, e, map[string]any{"email_allowed_domains": []string{"acme.test"}})
		get := func(email string) []any {
			r := e.SDK(http.MethodGet, "/b2b/sso/discovery/connections?email_address="+email, nil, "")
			apptest.Want(t, r, 200, "")
			return r.Data()["connections"].([]any)
		}
		if c := get("ada@acme.test"); len(c) != 1 || c[0].(map[string]any)["connection_id"] != s.connID ||
			c[0].(map[string]any)["identity_provider"] != "okta" {
			t.Fatalf("by domain: %v", c)
		}
		if c := get("someone@elsewhere.test"); len(c) != 0 {
			t.Fatalf("stranger: %v", c)
		}
		e.CreateMember(s.orgID, "contractor@elsewhere.test")
		if c := get("contractor@elsewhere.test"); len(c) != 1 {
			t.Fatalf("by membership: %v", c)
		}
		r := e.SDK(http.MethodGet, "/b2b/sso/discovery/connections?email_address=nope", nil, "")
		apptest.Want(t, r, 400, "invalid_email")
	})
}
