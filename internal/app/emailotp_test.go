package app_test

import (
	"context"
	"testing"
	"time"

	"github.com/latchkey/latchkey/internal/emailotp"
)

func (e *env) sendCode(org, email string) resp {
	return e.sdk("/b2b/otps/email/login_or_signup", map[string]any{"email_address": email, "organization_id": org}, "")
}

func (e *env) checkCode(org, email, code string) resp {
	return e.sdk("/b2b/otps/email/authenticate", map[string]any{"email_address": email, "organization_id": org,
		"code": code, "session_duration_minutes": 60}, "")
}

// wrongCode returns a 6-digit code different from code.
func wrongCode(code string) string {
	if code == "000000" {
		return "111111"
	}
	return "000000"
}

func TestEmailOTP(t *testing.T) {
	eachEnv(t, func(t *testing.T, e *env) {
		org := e.createOrg("acme", "NOT_ALLOWED")
		e.createMember(org, "ada@acme.test")

		if r := e.sendCode(org, "ada@acme.test"); r.Status != 200 {
			t.Fatalf("send: %s", r.Raw)
		}
		_, codes := e.lastMail("ada@acme.test")
		code := codes[0]
		want(t, e.checkCode(org, "ada@acme.test", wrongCode(code)), 404, "otp_code_not_found")
		want(t, e.checkCode(org, "ada@acme.test", "12ab56"), 400, "invalid_code")
		r := e.checkCode(org, "ADA@acme.test", code)
		if r.Status != 200 || r.data()["member_session"] == nil {
			t.Fatalf("right code after a wrong one: %s", r.Raw)
		}
		f := r.data()["member_session"].(map[string]any)["authentication_factors"].([]any)[0].(map[string]any)
		if f["type"] != "otp" || f["delivery_method"] != "email" {
			t.Fatalf("factor = %v", f)
		}
		want(t, e.checkCode(org, "ada@acme.test", code), 404, "otp_code_not_found") // single use

		// Unknown members look exactly like wrong codes (no enumeration),
		// and NOT_ALLOWED organizations refuse strangers at send time.
		want(t, e.checkCode(org, "nobody@acme.test", code), 404, "otp_code_not_found")
		want(t, e.sendCode(org, "nobody@acme.test"), 403, "email_jit_provisioning_not_allowed")
	})
}

func TestEmailOTPLockoutExpiryAndSupersede(t *testing.T) {
	eachEnv(t, func(t *testing.T, e *env) {
		org := e.createOrg("acme", "ALL_ALLOWED")

		e.sendCode(org, "lock@acme.test")
		_, codes := e.lastMail("lock@acme.test")
		for range emailotp.MaxAttempts {
			want(t, e.checkCode(org, "lock@acme.test", wrongCode(codes[0])), 404, "otp_code_not_found")
		}
		want(t, e.checkCode(org, "lock@acme.test", codes[0]), 404, "otp_code_not_found") // locked

		e.sendCode(org, "late@acme.test")
		_, codes = e.lastMail("late@acme.test")
		e.clock.Advance(emailotp.DefaultExpiry)
		want(t, e.checkCode(org, "late@acme.test", codes[0]), 404, "otp_code_not_found")

		e.sendCode(org, "twice@acme.test")
		_, first := e.lastMail("twice@acme.test")
		e.clock.Advance(time.Second)
		e.sendCode(org, "twice@acme.test")
		_, second := e.lastMail("twice@acme.test")
		if first[0] != second[0] {
			want(t, e.checkCode(org, "twice@acme.test", first[0]), 404, "otp_code_not_found")
		}
		if r := e.checkCode(org, "twice@acme.test", second[0]); r.Status != 200 {
			t.Fatalf("newest code: %s", r.Raw)
		}

		// Guesses are rate-limited per member beyond the per-code lockout.
		var last resp
		for i := 0; i <= emailotp.CheckPerEmail.Limit; i++ {
			last = e.checkCode(org, "guess@acme.test", "123456")
		}
		want(t, last, 429, "too_many_requests")
	})
}

// A send is one transaction: the fifth send to an address goes out, the
// sixth is refused and leaves nothing behind (no code, no mail), and a
// send refused for any reason (here the organization's JIT policy) still
// counts against the client address.
func TestEmailOTPSendLimitsAndAtomicity(t *testing.T) {
	eachEnv(t, func(t *testing.T, e *env) {
		ctx := context.Background()
		org := e.createOrg("acme", "ALL_ALLOWED")
		for i := range emailotp.SendPerEmail.Limit {
			if r := e.sendCode(org, "many@acme.test"); r.Status != 200 {
				t.Fatalf("send %d: %s", i+1, r.Raw)
			}
		}
		want(t, e.sendCode(org, "many@acme.test"), 429, "too_many_requests")
		msgs, err := e.app.Outbox.List(ctx, "many@acme.test", 0)
		if err != nil || len(msgs) != emailotp.SendPerEmail.Limit {
			t.Fatalf("%d messages (%v), want %d: a refused send mailed a code", len(msgs), err, emailotp.SendPerEmail.Limit)
		}
		var codes int
		if err := e.app.DB.Read().QueryRowContext(ctx, `SELECT COUNT(*) FROM email_otps`).Scan(&codes); err != nil || codes != emailotp.SendPerEmail.Limit {
			t.Fatalf("%d codes stored (%v), want %d", codes, err, emailotp.SendPerEmail.Limit)
		}

		closed := e.createOrg("closed", "NOT_ALLOWED")
		e.createMember(closed, "ada@closed.test")
		for range emailotp.SendPerIP.Limit - emailotp.SendPerEmail.Limit - 1 {
			want(t, e.sendCode(closed, "stranger@closed.test"), 403, "email_jit_provisioning_not_allowed")
		}
		want(t, e.sendCode(closed, "ada@closed.test"), 429, "too_many_requests")
	})
}
