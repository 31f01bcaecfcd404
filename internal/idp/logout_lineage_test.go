package idp_test

import (
	"net/http"
	"testing"

	"github.com/latchkey/latchkey/internal/apptest"
)

// logoutAsks runs logout/start from the fixture's session with hint and
// reports consent_required.
func (f *fixture) logoutAsks(clientID, hint string) bool {
	f.t.Helper()
	r := f.e.SDK("POST", "/b2b/oauth/logout/start", map[string]any{"client_id": clientID,
		"post_logout_redirect_uri": "https://rp.test/bye", "id_token_hint": hint}, f.session)
	apptest.Want(f.t, r, 200, "")
	return r.Data()["consent_required"].(bool)
}

// A step-up (adding TOTP, an email code joining the held session)
// replaces the member's session but not the provider session an ID
// token's sid names: a relying party's logout with a hint from before
// the step-up needs no confirmation, and ID tokens authorized after it
// carry the same sid. A hint from a session revoked since still asks
// after a new login.
func TestLogoutHintSurvivesAStepUp(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		f := setup(t, e)
		id, secret := f.client("third_party", nil)
		old := f.grant(id, secret, "openid").Body["id_token"].(string)
		sid := f.claims(old)["sid"].(string)

		_, f.session = e.SessionTOTP(f.org, f.member, f.session, nil)
		if f.logoutAsks(id, old) {
			t.Fatal("a hint from before a TOTP step-up asked for confirmation")
		}
		if got := f.claims(f.grant(id, secret, "openid").Body["id_token"].(string))["sid"]; got != sid {
			t.Fatalf("sid after a TOTP step-up %v, want %s", got, sid)
		}

		if r := e.SendCode(f.org, "ada@acme.test"); r.Status != 200 {
			t.Fatalf("send code: %s", r.Raw)
		}
		_, codes := e.LastMail("ada@acme.test")
		r := e.Backend(http.MethodPost, "/v1/b2b/otps/email/authenticate", map[string]any{"organization_id": f.org,
			"email_address": "ada@acme.test", "code": codes[0], "session_token": f.session})
		e.WantJoined(t, r, f.session, "totp", "email_otp")
		f.session = r.Body["session_token"].(string)
		if f.logoutAsks(id, old) {
			t.Fatal("a hint from before an email code joined the session asked for confirmation")
		}

		apptest.Want(t, e.Backend(http.MethodPost, "/v1/b2b/sessions/revoke", map[string]any{"session_token": f.session}), 200, "")
		f.session, _ = e.LoginByEmailOTP(f.org, "ada@acme.test")
		if !f.logoutAsks(id, old) {
			t.Fatal("a hint from a revoked, stepped-up session logged a new login out without asking")
		}
	})
}

// An exchange into another organization (sessions/exchange) is another
// session: its ID tokens carry another sid, and a hint from the session it
// left asks.
func TestLogoutHintFromBeforeAnExchangeAsks(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		f := setup(t, e)
		beta := e.CreateOrg("beta", "NOT_ALLOWED", nil)
		e.CreateMember(beta, "ada@acme.test")
		id, secret := f.client("third_party", nil)
		old := f.grant(id, secret, "openid").Body["id_token"].(string)

		r := e.SDK(http.MethodPost, "/b2b/sessions/exchange", map[string]any{"organization_id": beta,
			"session_duration_minutes": 60}, f.session)
		apptest.Want(t, r, 200, "")
		f.session = r.Data()["session_token"].(string)
		current := f.grant(id, secret, "openid").Body["id_token"].(string)
		if sid := f.claims(current)["sid"]; sid == nil || sid == f.claims(old)["sid"] {
			t.Fatalf("sid after an exchange into another organization %v, the one before %v", sid, f.claims(old)["sid"])
		}
		if !f.logoutAsks(id, old) {
			t.Fatal("a hint from the session an exchange left logged the new one out without asking")
		}
		if f.logoutAsks(id, current) {
			t.Fatal("a hint from the exchanged session asked for confirmation")
		}
	})
}
