package oauth_test

import (
	"context"
	"net/http"
	"net/url"
	"testing"
	"time"

	"github.com/latchkey/latchkey/internal/apptest"
	"github.com/latchkey/latchkey/internal/flowtoken"
	"github.com/latchkey/latchkey/internal/ids"
	"github.com/latchkey/latchkey/internal/project"
	"github.com/oauth2-proxy/mockoidc"
)

func TestGoogleLoginExistingMember(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		m := startGoogle(t, e)
		org := e.CreateOrg("acme", "NOT_ALLOWED", nil)
		memberID := e.CreateMember(org, "ada@acme.test")
		m.QueueUser(&mockoidc.MockUser{Subject: "g-ada", Email: "ada@acme.test", EmailVerified: true})
		verifier := ids.Token()
		u := browse(t, e, startPath(e, "google", url.Values{"organization_id": {org},
			"pkce_code_challenge": {flowtoken.S256(verifier)}, "provider_prompt": {"select_account"}}))
		if u.String()[:len(apptest.Page)] != apptest.Page || u.Query().Get("stytch_token_type") != "oauth" {
			t.Fatalf("redirected to %s", u)
		}
		tok := u.Query().Get("token")
		r := e.SDK(http.MethodPost, "/b2b/oauth/authenticate", map[string]any{"oauth_token": tok, "pkce_code_verifier": verifier,
			"session_duration_minutes": 60}, "")
		apptest.Want(t, r, 200, "")
		d := r.Data()
		if d["member_id"] != memberID || d["provider_type"] != nil ||
			str(d, "provider_values", "id_token") == "" || str(d, "session_token") == "" {
			t.Fatalf("answer: %s", r.Raw)
		}
		factors := d["member_session"].(map[string]any)["authentication_factors"].([]any)
		f := factors[0].(map[string]any)
		if f["type"] != "oauth" || f["delivery_method"] != "oauth_google" || str(f, "google_oauth_factor", "provider_subject") != "g-ada" {
			t.Fatalf("factor: %v", f)
		}
		regs := d["member"].(map[string]any)["oauth_registrations"].([]any)
		if len(regs) != 1 || str(regs[0].(map[string]any), "provider_type") != "google" {
			t.Fatalf("registrations: %v", regs)
		}
		// Single use.
		r = e.SDK(http.MethodPost, "/b2b/oauth/authenticate", map[string]any{"oauth_token": tok, "pkce_code_verifier": verifier}, "")
		apptest.Want(t, r, 404, "oauth_token_not_found")
		// The backend reads the member's Google tokens.
		r = e.Backend(http.MethodGet, "/v1/b2b/organizations/"+org+"/members/"+memberID+"/oauth_providers/google", nil)
		apptest.Want(t, r, 200, "")
		if r.Body["provider_subject"] != "g-ada" || r.Body["access_token"] == "" || r.Body["id_token"] == "" {
			t.Fatalf("provider info: %s", r.Raw)
		}
	})
}

func TestGoogleNegativePaths(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		m := startGoogle(t, e)
		org := e.CreateOrg("acme", "ALL_ALLOWED", nil)
		// Unregistered redirect URL: refused before the browser leaves.
		r := e.Get(startPath(e, "google", url.Values{"organization_id": {org}, "login_redirect_url": {"https://evil.test/x"}}))
		apptest.Want(t, r, 400, "no_match_for_provided_oauth_url")
		// Unconfigured provider: a catalogue error, never a 404.
		r = e.Get(startPath(e, "github", url.Values{"organization_id": {org}}))
		apptest.Want(t, r, 400, "oauth_config_not_found")
		r = e.Get(startPath(e, "myspace", url.Values{"organization_id": {org}}))
		apptest.Want(t, r, 400, "oauth_provider_not_supported")
		// State mismatch: an unknown state at the callback.
		r = e.Get("/v1/b2b/public/oauth/callback?code=x&state=forged")
		apptest.Want(t, r, 400, "oauth_flow_callback_error")
		// A replayed state: the second callback is refused.
		m.QueueUser(&mockoidc.MockUser{Subject: "g-bob", Email: "bob@acme.test", EmailVerified: true})
		start := e.Get(startPath(e, "google", url.Values{"organization_id": {org}, "pkce_code_challenge": {flowtoken.S256(ids.Token())}}))
		_, cb := follow(t, start.Header.Get("Location"))
		r = e.Get(cb)
		if r.Status != http.StatusFound {
			t.Fatalf("callback: %d %s", r.Status, r.Raw)
		}
		apptest.Want(t, e.Get(cb), 400, "oauth_flow_callback_error")
		// PKCE mismatch: the token is refused without the browser's verifier, and no session is created.
		u, _ := url.Parse(r.Header.Get("Location"))
		tok := u.Query().Get("token")
		r = e.SDK(http.MethodPost, "/b2b/oauth/authenticate", map[string]any{"oauth_token": tok, "pkce_code_verifier": ids.Token()}, "")
		apptest.Want(t, r, 400, "pkce_mismatch")
		var n int
		if err := e.App.DB.Read().QueryRowContext(context.Background(), `SELECT COUNT(*) FROM member_sessions`).Scan(&n); err != nil || n != 0 {
			t.Fatalf("%d sessions (%v)", n, err)
		}
		// Unverified email cannot claim an existing member.
		e.CreateMember(org, "carol@acme.test")
		m.QueueUser(&mockoidc.MockUser{Subject: "g-carol", Email: "carol@acme.test", EmailVerified: false})
		u = browse(t, e, startPath(e, "google", url.Values{"organization_id": {org}}))
		r = e.SDK(http.MethodPost, "/b2b/oauth/authenticate", map[string]any{"oauth_token": u.Query().Get("token")}, "")
		apptest.Want(t, r, 403, "oauth_unverified_email")
		// pkce_required_for_oauth: a start or One Tap submit without a challenge is refused.
		on := true
		if _, err := e.App.Projects.Update(context.Background(), e.Project.Project.ID, project.Update{PKCERequiredForOAuth: &on}); err != nil {
			t.Fatal(err)
		}
		// The resolver's cache drops the project through the change feed (polled).
		for deadline := time.Now().Add(3 * time.Second); ; time.Sleep(50 * time.Millisecond) {
			r = e.Get(startPath(e, "google", url.Values{"organization_id": {org}}))
			if r.Status != http.StatusFound || time.Now().After(deadline) {
				break
			}
		}
		apptest.Want(t, r, 400, "invalid_pkce_code_challenge")
		r = e.SDK(http.MethodPost, "/b2b/oauth/google/onetap/submit", map[string]any{"id_token": "x.y.z", "organization_id": org}, "")
		apptest.Want(t, r, 400, "invalid_pkce_code_challenge")
		if boot := e.Get("/sdk/v1/projects/bootstrap/" + e.Project.PublicToken); boot.Data()["pkce_required_for_oauth"] != true {
			t.Fatalf("bootstrap: %s", boot.Raw)
		}
		r = e.Get(startPath(e, "google", url.Values{"organization_id": {org}, "pkce_code_challenge": {flowtoken.S256(ids.Token())}}))
		if r.Status != http.StatusFound {
			t.Fatalf("start with a challenge: %d %s", r.Status, r.Raw)
		}
	})
}

func TestGoogleTenantJITAndDiscovery(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		m := startGoogle(t, e)
		org := e.CreateOrg("initech", "NOT_ALLOWED", map[string]any{"oauth_tenant_jit_provisioning": "RESTRICTED",
			"allowed_oauth_tenants": map[string]any{"google": []string{"initech.test"}}})
		user := func(sub string) *editedUser {
			return &editedUser{MockUser: &mockoidc.MockUser{Subject: sub, Email: sub + "@initech.test", EmailVerified: true}, HD: "initech.test"}
		}
		discover := func(who string) apptest.Resp {
			m.QueueUser(user(who))
			q := url.Values{"public_token": {e.Project.PublicToken}}
			u := browse(t, e, "/v1/b2b/public/oauth/google/discovery/start?"+q.Encode())
			if u.Query().Get("stytch_token_type") != "discovery_oauth" {
				t.Fatalf("redirected to %s", u)
			}
			r := e.SDK(http.MethodPost, "/b2b/oauth/discovery/authenticate", map[string]any{"discovery_oauth_token": u.Query().Get("token")}, "")
			apptest.Want(t, r, 200, "")
			return r
		}
		// Nobody vouches for the organization at its tenant yet (no member
		// in it, no claim of its domain): discovery does not offer it.
		if r := discover("peter"); len(r.Data()["discovered_organizations"].([]any)) != 0 {
			t.Fatalf("offered unvouched: %s", r.Raw)
		}
		// The organization flow admits a new member by tenant, though email
		// JIT is off: its own login page is its admin's own rule.
		m.QueueUser(user("milton"))
		u := browse(t, e, startPath(e, "google", url.Values{"slug": {"initech"}}))
		r := e.SDK(http.MethodPost, "/b2b/oauth/authenticate", map[string]any{"oauth_token": u.Query().Get("token")}, "")
		apptest.Want(t, r, 200, "")
		// Milton, an active member in the tenant, vouches for it: discovery
		// lists the organization as joinable by the Workspace tenant.
		r = discover("peter")
		orgs := r.Data()["discovered_organizations"].([]any)
		if len(orgs) != 1 || str(orgs[0].(map[string]any), "membership", "type") != "eligible_to_join_by_oauth_tenant" ||
			str(orgs[0].(map[string]any), "membership", "details", "tenant") != "initech.test" {
			t.Fatalf("discovered: %s", r.Raw)
		}
		// Exchanging the IST joins by tenant JIT.
		r = e.SDK(http.MethodPost, "/b2b/discovery/intermediate_sessions/exchange", map[string]any{"organization_id": org,
			"intermediate_session_token": r.Data()["intermediate_session_token"], "session_duration_minutes": 60}, "")
		apptest.Want(t, r, 200, "")
		if str(r.Data(), "member", "email_address") != "peter@initech.test" || r.Data()["member_session"] == nil {
			t.Fatalf("exchange: %s", r.Raw)
		}
		// The account proven in discovery is registered to the member it joined
		// as, and the session's factor names that registration.
		b := e.Backend(http.MethodPost, "/v1/b2b/sessions/authenticate", map[string]any{"session_token": r.Data()["session_token"]})
		apptest.Want(t, b, 200, "")
		regs, _ := b.Body["member"].(map[string]any)["oauth_registrations"].([]any)
		if len(regs) != 1 || str(regs[0].(map[string]any), "provider_subject") != "peter" {
			t.Fatalf("registrations after discovery: %s", b.Raw)
		}
		regID := str(regs[0].(map[string]any), "member_oauth_registration_id")
		factors, _ := b.Body["member_session"].(map[string]any)["authentication_factors"].([]any)
		if len(factors) != 1 || regID == "" || str(factors[0].(map[string]any), "google_oauth_factor", "id") != regID {
			t.Fatalf("factor does not name registration %q: %s", regID, b.Raw)
		}
		// Another tenant is refused by the email JIT rule.
		m.QueueUser(&mockoidc.MockUser{Subject: "x", Email: "x@other.test", EmailVerified: true})
		u = browse(t, e, startPath(e, "google", url.Values{"slug": {"initech"}}))
		r = e.SDK(http.MethodPost, "/b2b/oauth/authenticate", map[string]any{"oauth_token": u.Query().Get("token")}, "")
		apptest.Want(t, r, 403, "email_jit_provisioning_not_allowed")
	})
}

// A deleted member cannot log in with OAuth, though the provider vouches
// for their verified address: the authenticate call is refused
// inactive_member and gives no session.
func TestGoogleLoginRefusesDeletedMember(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		m := startGoogle(t, e)
		org := e.CreateOrg("acme", "ALL_ALLOWED", nil)
		memberID := e.CreateMember(org, "ada@acme.test")
		apptest.Want(t, e.Backend(http.MethodDelete, "/v1/b2b/organizations/"+org+"/members/"+memberID, nil), 200, "")
		m.QueueUser(&mockoidc.MockUser{Subject: "g-ada", Email: "ada@acme.test", EmailVerified: true})
		verifier := ids.Token()
		u := browse(t, e, startPath(e, "google", url.Values{"organization_id": {org},
			"pkce_code_challenge": {flowtoken.S256(verifier)}}))
		r := e.SDK(http.MethodPost, "/b2b/oauth/authenticate", map[string]any{"oauth_token": u.Query().Get("token"),
			"pkce_code_verifier": verifier, "session_duration_minutes": 60}, "")
		apptest.Want(t, r, 403, "inactive_member")
		if r.Data()["session_token"] != nil {
			t.Fatalf("session for a deleted member: %s", r.Raw)
		}
	})
}
