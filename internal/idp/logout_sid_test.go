package idp_test

import (
	"net/http"
	"testing"

	"github.com/latchkey/latchkey/internal/apptest"
)

// The logout is confirmed unless the id_token_hint was issued in the
// member's current session (RP-Initiated Logout 1.0 2): ID tokens carry
// the session's sid (so do those a refresh issues), and an ID token from
// an earlier session of the same member, revoked since, does not end the
// new one without asking. The sid is not the session's public id.
func TestLogoutConfirmsAHintFromAnotherSession(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		f := setup(t, e)
		id, secret := f.client("third_party", nil)
		logout := func(hint string) bool {
			t.Helper()
			r := e.SDK("POST", "/b2b/oauth/logout/start", map[string]any{"client_id": id,
				"post_logout_redirect_uri": "https://rp.test/bye", "id_token_hint": hint}, f.session)
			apptest.Want(t, r, 200, "")
			return r.Data()["consent_required"].(bool)
		}
		sessionID := func() string {
			t.Helper()
			r := e.Backend(http.MethodPost, "/v1/b2b/sessions/authenticate", map[string]any{"session_token": f.session})
			apptest.Want(t, r, 200, "")
			return r.Body["member_session"].(map[string]any)["member_session_id"].(string)
		}

		tok := f.grant(id, secret, "openid", "offline_access")
		old := tok.Body["id_token"].(string)
		sid, _ := f.claims(old)["sid"].(string)
		if sid == "" || sid == sessionID() {
			t.Fatalf("sid %q (member_session_id %s)", sid, sessionID())
		}
		if logout(old) {
			t.Fatal("a hint from the current session asked for confirmation")
		}
		r := f.refresh(id, secret, tok.Body["refresh_token"].(string), "")
		apptest.Want(t, r, 200, "")
		if got := f.claims(r.Body["id_token"].(string))["sid"]; got != sid {
			t.Fatalf("refreshed ID token sid %v, want %s", got, sid)
		}

		apptest.Want(t, e.Backend(http.MethodPost, "/v1/b2b/sessions/revoke", map[string]any{"session_token": f.session}), 200, "")
		f.session, _ = e.LoginByEmailOTP(f.org, "ada@acme.test")
		if !logout(old) {
			t.Fatal("a hint from a revoked session of the member logged the new session out without asking")
		}
		current := f.grant(id, secret, "openid").Body["id_token"].(string)
		if f.claims(current)["sid"] == sid {
			t.Fatal("two sessions share a sid")
		}
		if logout(current) {
			t.Fatal("a hint from the new session asked for confirmation")
		}
	})
}
