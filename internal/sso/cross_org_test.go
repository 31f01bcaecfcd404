package sso_test

import (
	"net/http"
	"testing"

	"github.com/oauth2-proxy/mockoidc"

	"github.com/latchkey/latchkey/internal/apptest"
)

// An organization's admin runs its identity provider, which may assert any
// address, verified or not. Such a login must stay in that organization:
// sessions/exchange must not turn it into a session as another
// organization's member with the same address, nor admit the address
// anywhere else, and it must not set the password the address uses in
// every organization.
func TestSSOLoginStaysInItsOrganization(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		s := newOIDCEnv(t, e)
		victim := e.CreateOrg("victimco", "NOT_ALLOWED", nil)
		victimID := e.CreateMember(victim, "ceo@victim.test")
		open := e.CreateOrg("open-co", "ALL_ALLOWED", nil)

		forged := &mockoidc.MockUser{Subject: "attacker-sub", Email: "ceo@victim.test", EmailVerified: true}
		r := s.SDK(http.MethodPost, "/b2b/sso/authenticate", map[string]any{"sso_token": tokenFrom(t, s.login(forged, nil)),
			"session_duration_minutes": 60}, "")
		apptest.Want(t, r, 200, "")
		token := r.Data()["session_token"].(string)

		r = e.SDK(http.MethodPost, "/b2b/sessions/exchange", map[string]any{"organization_id": victim, "session_duration_minutes": 60}, token)
		apptest.Want(t, r, 200, "")
		if d := r.Data(); d["member_session"] != nil || d["session_token"] != "" || d["primary_required"] == nil ||
			d["intermediate_session_token"] == "" || d["member_id"] != victimID {
			t.Fatalf("exchange into the other organization: %s", r.Raw)
		}
		// Nothing was exchanged: the SSO session is still the caller's.
		apptest.Want(t, e.SDK(http.MethodPost, "/b2b/sessions/authenticate", map[string]any{}, token), 200, "")

		// Nor does it list the address's other organizations.
		d := e.SDK(http.MethodPost, "/b2b/discovery/organizations", map[string]any{}, token)
		apptest.Want(t, d, 200, "")
		if got := apptest.Memberships(d.Data()); len(got) != 1 || got["acme"] != "active_member" {
			t.Fatalf("discovered with the SSO session: %v", got)
		}

		// Where the address is no member, nobody is admitted on its word
		// (sessions/exchange admits no one new, whatever the factors).
		apptest.Want(t, e.SDK(http.MethodPost, "/b2b/sessions/exchange", map[string]any{"organization_id": open,
			"session_duration_minutes": 60}, token), 404, "member_not_found")
		if got, _ := e.EmailsOf(map[string]any{"organization_ids": []string{open}}); len(got) != 0 {
			t.Fatalf("members of %s after the refused exchange: %v", open, got)
		}

		// The address's password serves every organization, so this session
		// may not set it (the victim's organization accepts passwords).
		apptest.Want(t, e.SDK(http.MethodPost, "/b2b/passwords/session/reset", map[string]any{"password": apptest.StrongPassword}, token),
			403, "unauthorized_action")
		apptest.Want(t, e.SDK(http.MethodPost, "/b2b/passwords/authenticate", map[string]any{"organization_id": victim,
			"email_address": "ceo@victim.test", "password": apptest.StrongPassword, "session_duration_minutes": 60}, ""),
			401, "unauthorized_credentials")
	})
}
