package oauth_test

import (
	"net/http"
	"net/url"
	"testing"

	"github.com/latchkey/latchkey/internal/apptest"
	"github.com/latchkey/latchkey/internal/oauth/providers"
	"github.com/oauth2-proxy/mockoidc"
)

// Email JIT admits only addresses the provider verified: an unverified
// address in an allowed domain is refused oauth_unverified_email, where
// the same login with a verified one is admitted.
func TestOAuthEmailJITNeedsVerifiedEmail(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		m := startGoogle(t, e)
		org := e.CreateOrg("acme", "RESTRICTED", map[string]any{"email_allowed_domains": []string{"acme.test"}})
		unverified := &mockoidc.MockUser{Subject: "g-eve", Email: "eve@acme.test"}
		apptest.Want(t, authenticateAfter(t, e, callbackOf(t, e, m, "google", org, unverified)), 403, "oauth_unverified_email")
		verified := &mockoidc.MockUser{Subject: "g-ada", Email: "ada@acme.test", EmailVerified: true}
		apptest.Want(t, authenticateAfter(t, e, callbackOf(t, e, m, "google", org, verified)), 200, "")
	})
}

// Discovery lists organizations by email, so it needs an address the
// provider verified: an unverified one is refused oauth_unverified_email.
func TestOAuthDiscoveryNeedsVerifiedEmail(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		m := startGoogle(t, e)
		org := e.CreateOrg("acme", "NOT_ALLOWED", nil)
		e.CreateMember(org, "ada@acme.test")
		discover := func(user *mockoidc.MockUser) apptest.Resp {
			m.QueueUser(user)
			u := browse(t, e, "/v1/b2b/public/oauth/google/discovery/start?"+url.Values{"public_token": {e.Project.PublicToken}}.Encode())
			return e.SDK(http.MethodPost, "/b2b/oauth/discovery/authenticate", map[string]any{"discovery_oauth_token": u.Query().Get("token")}, "")
		}
		apptest.Want(t, discover(&mockoidc.MockUser{Subject: "g-ada", Email: "ada@acme.test"}), 403, "oauth_unverified_email")
		r := discover(&mockoidc.MockUser{Subject: "g-ada", Email: "ada@acme.test", EmailVerified: true})
		apptest.Want(t, r, 200, "")
		if orgs, _ := r.Data()["discovered_organizations"].([]any); len(orgs) != 1 {
			t.Fatalf("discovered: %s", r.Raw)
		}
	})
}

// A member admitted by OAuth tenant JIT with an address the provider did
// not verify keeps it unverified, on that login and on the next ones by
// the same registered account; only a login whose provider verifies the
// address marks it verified.
func TestOAuthUnverifiedEmailStaysUnverified(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		m := startGoogle(t, e)
		org := e.CreateOrg("initech", "NOT_ALLOWED", map[string]any{"oauth_tenant_jit_provisioning": "RESTRICTED",
			"allowed_oauth_tenants": map[string]any{"google": []string{"initech.test"}}})
		milton := func(verified bool) *editedUser {
			return &editedUser{MockUser: &mockoidc.MockUser{Subject: "milton", Email: "milton@initech.test", EmailVerified: verified},
				HD: "initech.test"}
		}
		verifiedAfter := func(user *editedUser) any {
			t.Helper()
			r := authenticateAfter(t, e, callbackOf(t, e, m, "google", org, user))
			apptest.Want(t, r, 200, "")
			return r.Data()["member"].(map[string]any)["email_address_verified"]
		}
		if v := verifiedAfter(milton(false)); v != false {
			t.Fatalf("admitted by tenant: email_address_verified %v", v)
		}
		if v := verifiedAfter(milton(false)); v != false {
			t.Fatalf("registered account, unverified again: email_address_verified %v", v)
		}
		if v := verifiedAfter(milton(true)); v != true {
			t.Fatalf("verified by the provider: email_address_verified %v", v)
		}
	})
}

// Which address a provider vouches for decides account linking: GitHub's
// primary address only, and only when GitHub marks it verified; Slack's
// only with email_verified. A member's address the provider does not vouch
// for cannot claim that member.
func TestOAuthProviderEmailTrustForLinking(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		org := e.CreateOrg("acme", "NOT_ALLOWED", map[string]any{"oauth_tenant_jit_provisioning": "RESTRICTED",
			"allowed_oauth_tenants": map[string]any{"github": []string{"77"}}})
		e.CreateMember(org, "ada@acme.test")
		user := map[string]any{"id": 4242, "login": "octo"}
		for _, c := range []struct {
			name, provider string
			routes         map[string]any
			status         int
			typ            string
		}{
			{"github primary address unverified", providers.GitHub, map[string]any{"/user": user, "/user/orgs": []any{},
				"/user/emails": []any{map[string]any{"email": "ada@acme.test", "primary": true, "verified": false}}},
				403, "oauth_unverified_email"},
			{"github verified address that is not the primary", providers.GitHub, map[string]any{"/user": user, "/user/orgs": []any{},
				"/user/emails": []any{map[string]any{"email": "octo@hub.test", "primary": true, "verified": true},
					map[string]any{"email": "ada@acme.test", "primary": false, "verified": true}}},
				403, "email_jit_provisioning_not_allowed"},
			{"github account without an address, in an allowed tenant", providers.GitHub, map[string]any{"/user": user,
				"/user/orgs": []any{map[string]any{"id": 77, "login": "acme"}}, "/user/emails": []any{}},
				403, "oauth_unverified_email"},
			{"slack address unverified", providers.Slack, map[string]any{"/openid.connect.userInfo": map[string]any{"ok": true,
				"sub": "U1", "email": "ada@acme.test", "email_verified": false, "https://slack.com/team_id": "T9"}},
				403, "oauth_unverified_email"},
		} {
			t.Run(c.name, func(t *testing.T) {
				configure(t, e, c.provider, newFakeAPI(t, c.routes).config())
				u := browse(t, e, startPath(e, c.provider, url.Values{"organization_id": {org}}))
				r := e.SDK(http.MethodPost, "/b2b/oauth/authenticate", map[string]any{"oauth_token": u.Query().Get("token")}, "")
				apptest.Want(t, r, c.status, c.typ)
			})
		}
	})
}
