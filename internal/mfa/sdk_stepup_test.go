package mfa_test

import (
	"net/http"
	"testing"
	"time"

	"github.com/latchkey/latchkey/internal/apptest"
	"github.com/latchkey/latchkey/internal/stepup"
)

// On the SDK face a member's own session changes or reads their second
// factors only while its newest factor is recent: a stale session (stolen
// or long idle) is refused session_too_old when it asks for the recovery
// codes, rotates them, enrolls an authenticator app or texts a code to a
// new number (a phone to enroll), since each would
// let its holder pass MFA as the member. A fresh factor on the same
// session lets it through.
func TestSDKFactorChangesNeedARecentFactor(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		e.AlignClock()
		org := e.CreateOrg("acme", "ALL_ALLOWED", nil)
		mid := e.CreateMember(org, "ada@acme.test")
		bob := e.CreateMember(org, "bob@acme.test")
		secret, _, token := e.EnrollTOTPWithSession(org, "ada@acme.test", nil)
		bobToken, _ := e.EmailLogin(org, "bob@acme.test")["session_token"].(string)

		e.Clock.Advance(stepup.Window + time.Minute)
		apptest.Want(t, e.SDK(http.MethodGet, "/b2b/recovery_codes", nil, token), 403, "session_too_old")
		apptest.Want(t, e.SDK(http.MethodPost, "/b2b/recovery_codes/rotate", map[string]any{}, token), 403, "session_too_old")
		apptest.Want(t, e.SDK(http.MethodPost, "/b2b/totp", map[string]any{"organization_id": org, "member_id": bob}, bobToken),
			403, "session_too_old")
		apptest.Want(t, e.SDK(http.MethodPost, "/b2b/otps/sms/send", map[string]any{"organization_id": org, "member_id": mid,
			"mfa_phone_number": "+14155550177"}, token), 403, "session_too_old")
		if msgs, err := e.App.Outbox.List(t.Context(), "+14155550177", 0); err != nil || len(msgs) != 0 {
			t.Fatalf("a stale session texted a new number: %d, %v", len(msgs), err)
		}
		if m := e.MemberByID(org, bob); m["totp_registration_id"] != "" {
			t.Fatalf("a stale session enrolled an authenticator: %v", m["totp_registration_id"])
		}

		r := e.SDK(http.MethodPost, "/b2b/totp/authenticate", map[string]any{"organization_id": org, "member_id": mid,
			"code": apptest.TOTPAt(t, secret, e.Clock.Now())}, token)
		apptest.Want(t, r, 200, "")
		if r := e.SDK(http.MethodGet, "/b2b/recovery_codes", nil, r.Data()["session_token"].(string)); r.Status != 200 {
			t.Fatalf("after a fresh factor: %s", r.Raw)
		}
	})
}
