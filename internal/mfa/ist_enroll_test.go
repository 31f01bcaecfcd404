package mfa_test

import (
	"net/http"
	"testing"
	"time"

	"github.com/latchkey/latchkey/internal/apptest"
)

// A login in progress (an IST holding only the first factor) may enroll a
// phone only for a member without a second factor: for a member who has
// an authenticator app, a text to a new number is refused
// unauthorized_action and nothing is sent, on both faces; and a code that
// went to a new number at the request of the member's session does not
// enroll it from a login in progress either (checked again when the code
// is redeemed). Otherwise whoever holds the member's first factor would
// enroll a phone and pass MFA with it, skipping the factor the member set
// up.
func TestLoginInProgressCannotEnrollAPhoneOverAnotherFactor(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		e.AlignClock()
		org, mid, secret, _ := e.TOTPMember()
		ist, _ := e.MFALogin(org, "ada@secure.test")
		const attacker = "+14155550199"
		apptest.Want(t, e.SMSSend(org, mid, ist, attacker), 403, "unauthorized_action")
		apptest.Want(t, e.Backend(http.MethodPost, "/v1/b2b/otps/sms/send", map[string]any{"organization_id": org, "member_id": mid,
			"intermediate_session_token": ist, "mfa_phone_number": attacker}), 403, "unauthorized_action")
		if msgs, err := e.App.Outbox.List(t.Context(), attacker, 0); err != nil || len(msgs) != 0 {
			t.Fatalf("texted the new number mid-login: %d, %v", len(msgs), err)
		}
		if m := e.MemberByID(org, mid); m["mfa_phone_number"] != "" {
			t.Fatalf("phone recorded mid-login: %v", m["mfa_phone_number"])
		}

		// The member's own session sends a code to a new number; a login
		// in progress then redeems it. (The next authenticator step: the
		// current code was spent by TOTPMember.)
		e.Clock.Advance(30 * time.Second)
		r := e.Backend(http.MethodPost, "/v1/b2b/totp/authenticate", map[string]any{"organization_id": org, "member_id": mid,
			"intermediate_session_token": ist, "code": apptest.TOTPAt(t, secret, e.Clock.Now())})
		apptest.Want(t, r, 200, "")
		const fresh = "+14155550188"
		apptest.Want(t, e.SDK(http.MethodPost, "/b2b/otps/sms/send", map[string]any{"organization_id": org, "member_id": mid,
			"mfa_phone_number": fresh}, r.Body["session_token"].(string)), 200, "")
		code := e.LastSMS(fresh)
		ist, _ = e.MFALogin(org, "ada@secure.test")
		apptest.Want(t, e.SMSAuth(org, mid, ist, code, nil), 403, "unauthorized_action")
		if m := e.MemberByID(org, mid); m["mfa_phone_number"] != "" {
			t.Fatalf("a login in progress enrolled the session's number: %v", m["mfa_phone_number"])
		}
	})
}
