package oauth_test

import (
	"net/http"
	"net/url"
	"testing"

	"github.com/latchkey/latchkey/internal/apptest"
	"github.com/latchkey/latchkey/internal/oauth/providers"
	"github.com/oauth2-proxy/mockoidc"
)

// A registration binds one provider's account to one member of one
// organization: the same account logging in to another organization is
// not that member there (it is a stranger, refused by email JIT), and
// another provider's account with the same subject is not that member
// either.
func TestOAuthRegistrationIsPerOrganizationAndProvider(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		m := startGoogle(t, e)
		acme := e.CreateOrg("acme", "NOT_ALLOWED", nil)
		other := e.CreateOrg("other", "NOT_ALLOWED", nil)
		adaID := e.CreateMember(acme, "ada@acme.test")
		// Google account "4242" registers to ada in acme.
		ada := &mockoidc.MockUser{Subject: "4242", Email: "ada@acme.test", EmailVerified: true}
		r := authenticateAfter(t, e, callbackOf(t, e, m, "google", acme, ada))
		apptest.Want(t, r, 200, "")
		if r.Data()["member_id"] != adaID {
			t.Fatalf("first login: %s", r.Raw)
		}
		// The same account in another organization.
		apptest.Want(t, authenticateAfter(t, e, callbackOf(t, e, m, "google", other, ada)), 403, "email_jit_provisioning_not_allowed")
		// GitHub user 4242 (someone else) in acme.
		gh := newFakeAPI(t, map[string]any{"/user": map[string]any{"id": 4242, "login": "octo"}, "/user/orgs": []any{},
			"/user/emails": []any{map[string]any{"email": "octo@hub.test", "primary": true, "verified": true}}})
		configure(t, e, providers.GitHub, gh.config())
		u := browse(t, e, startPath(e, "github", url.Values{"organization_id": {acme}}))
		r = e.SDK(http.MethodPost, "/b2b/oauth/authenticate", map[string]any{"oauth_token": u.Query().Get("token")}, "")
		apptest.Want(t, r, 403, "email_jit_provisioning_not_allowed")
	})
}

// The backend reads a member's provider tokens only through the
// member's own organization, and the refresh token only when it asks for
// it (include_refresh_token=true).
func TestOAuthProviderTokensScopedAndRefreshOnRequest(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		f := newFakeAPI(t, map[string]any{"/user": map[string]any{"id": 4242, "login": "octo"}, "/user/orgs": []any{},
			"/user/emails": []any{map[string]any{"email": "octo@hub.test", "primary": true, "verified": true}}})
		configure(t, e, providers.GitHub, f.config())
		org := e.CreateOrg("hub", "NOT_ALLOWED", nil)
		other := e.CreateOrg("other", "NOT_ALLOWED", nil)
		memberID := e.CreateMember(org, "octo@hub.test")
		u := browse(t, e, startPath(e, "github", url.Values{"organization_id": {org}}))
		apptest.Want(t, e.SDK(http.MethodPost, "/b2b/oauth/authenticate", map[string]any{"oauth_token": u.Query().Get("token")}, ""), 200, "")
		path := "/v1/b2b/organizations/" + org + "/members/" + memberID + "/oauth_providers/github"
		r := e.Backend(http.MethodGet, path, nil)
		apptest.Want(t, r, 200, "")
		regs := r.Body["registrations"].([]any)
		if len(regs) != 1 || str(regs[0].(map[string]any), "access_token") != "at-1" || str(regs[0].(map[string]any), "refresh_token") != "" {
			t.Fatalf("without include_refresh_token: %s", r.Raw)
		}
		r = e.Backend(http.MethodGet, path+"?include_refresh_token=true", nil)
		apptest.Want(t, r, 200, "")
		if regs := r.Body["registrations"].([]any); str(regs[0].(map[string]any), "refresh_token") != "rt-1" {
			t.Fatalf("with include_refresh_token: %s", r.Raw)
		}
		r = e.Backend(http.MethodGet, "/v1/b2b/organizations/"+other+"/members/"+memberID+"/oauth_providers/github", nil)
		apptest.Want(t, r, 404, "member_not_found")
	})
}

// An OAuth token belongs to the project whose flow issued it: another
// project's backend cannot redeem it (oauth_token_not_found), and the
// attempt does not spend it for its own project.
func TestOAuthTokenRedeemedOnlyByItsProject(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		m := startGoogle(t, e)
		org := e.CreateOrg("acme", "NOT_ALLOWED", nil)
		e.CreateMember(org, "ada@acme.test")
		m.QueueUser(&mockoidc.MockUser{Subject: "g-ada", Email: "ada@acme.test", EmailVerified: true})
		u := browse(t, e, startPath(e, "google", url.Values{"organization_id": {org}}))
		body := map[string]any{"oauth_token": u.Query().Get("token")}
		p2 := e.NewProject("Other")
		r := e.Do(http.MethodPost, "/v1/b2b/oauth/authenticate", body, nil, p2.Project.ID, p2.Secret)
		apptest.Want(t, r, 404, "oauth_token_not_found")
		apptest.Want(t, e.Backend(http.MethodPost, "/v1/b2b/oauth/authenticate", body), 200, "")
	})
}

// A login that began in discovery registers the provider account to the
// member it joins as, unless the account is already registered to another
// member of the organization: then it stays theirs, and the session's
// factor names no registration (not the other member's).
func TestOAuthDiscoveryLeavesAnotherMembersRegistration(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		m := startGoogle(t, e)
		org := e.CreateOrg("acme", "NOT_ALLOWED", nil)
		e.CreateMember(org, "ada@acme.test")
		bobID := e.CreateMember(org, "bob@acme.test")
		// Google account g-1 registers to ada.
		r := authenticateAfter(t, e, callbackOf(t, e, m, "google", org,
			&mockoidc.MockUser{Subject: "g-1", Email: "ada@acme.test", EmailVerified: true}))
		apptest.Want(t, r, 200, "")
		regs := r.Data()["member"].(map[string]any)["oauth_registrations"].([]any)
		adaReg := str(regs[0].(map[string]any), "member_oauth_registration_id")
		// The same account, now with bob's verified address, in discovery.
		m.QueueUser(&mockoidc.MockUser{Subject: "g-1", Email: "bob@acme.test", EmailVerified: true})
		u := browse(t, e, "/v1/b2b/public/oauth/google/discovery/start?"+url.Values{"public_token": {e.Project.PublicToken}}.Encode())
		r = e.SDK(http.MethodPost, "/b2b/oauth/discovery/authenticate", map[string]any{"discovery_oauth_token": u.Query().Get("token")}, "")
		apptest.Want(t, r, 200, "")
		r = e.SDK(http.MethodPost, "/b2b/discovery/intermediate_sessions/exchange", map[string]any{"organization_id": org,
			"intermediate_session_token": r.Data()["intermediate_session_token"], "session_duration_minutes": 60}, "")
		apptest.Want(t, r, 200, "")
		if r.Data()["member_id"] != bobID {
			t.Fatalf("exchange: %s", r.Raw)
		}
		b := e.Backend(http.MethodPost, "/v1/b2b/sessions/authenticate", map[string]any{"session_token": r.Data()["session_token"]})
		apptest.Want(t, b, 200, "")
		factors, _ := b.Body["member_session"].(map[string]any)["authentication_factors"].([]any)
		if len(factors) != 1 || str(factors[0].(map[string]any), "google_oauth_factor", "id") != "" {
			t.Fatalf("bob's factor names registration %q (ada's is %q): %s", str(factors[0].(map[string]any), "google_oauth_factor", "id"), adaReg, b.Raw)
		}
		if regs, _ := b.Body["member"].(map[string]any)["oauth_registrations"].([]any); len(regs) != 0 {
			t.Fatalf("bob's registrations: %s", b.Raw)
		}
	})
}
