package app_test

import (
	"fmt"
	"net/http"
	"testing"

	"github.com/latchkey/latchkey/internal/discovery"
	"github.com/latchkey/latchkey/internal/emailotp"
	"github.com/latchkey/latchkey/internal/magiclink"
	"github.com/latchkey/latchkey/internal/mfa"
	"github.com/latchkey/latchkey/internal/password"
	"github.com/latchkey/latchkey/internal/session"
)

// Secret checks are limited per client address as well as per account:
// one address guessing across many accounts, each below its own limit, is
// refused once the address's allowance is spent, even with a right secret.
// (Every request of the harness comes from one address.)

func TestEmailCodeChecksLimitedPerAddress(t *testing.T) {
	eachEnv(t, func(t *testing.T, e *env) {
		org := e.createOrg("acme", "ALL_ALLOWED")
		perEmail := emailotp.CheckPerEmail.Limit - 1
		for i := range emailotp.CheckPerIP.Limit {
			want(t, e.checkCode(org, fmt.Sprintf("g%d@acme.test", i/perEmail), "123456"), 404, "otp_code_not_found")
		}
		if r := e.sendCode(org, "ada@acme.test"); r.Status != 200 {
			t.Fatalf("send: %s", r.Raw)
		}
		_, codes := e.lastMail("ada@acme.test")
		want(t, e.checkCode(org, "ada@acme.test", codes[0]), 429, "too_many_requests")
	})
}

func TestMagicLinkRedeemsLimitedPerAddress(t *testing.T) {
	eachEnv(t, func(t *testing.T, e *env) {
		org := e.createOrg("acme", "ALL_ALLOWED")
		for i := range magiclink.RedeemPerIP.Limit {
			if r := e.redeem(fmt.Sprintf("not-a-token-%d", i), nil); r.Status == 200 || r.Status == 429 {
				t.Fatalf("guess %d: %s", i, r.Raw)
			}
		}
		if r := e.sendLink(org, "ada@acme.test", nil); r.Status != 200 {
			t.Fatalf("send: %s", r.Raw)
		}
		links, _ := e.lastMail("ada@acme.test")
		want(t, e.redeem(tokenFrom(t, e, links[0]), nil), 429, "too_many_requests")
	})
}

func TestDiscoveryExchangesLimitedPerAddress(t *testing.T) {
	eachEnv(t, func(t *testing.T, e *env) {
		org := e.createOrg("acme", "ALL_ALLOWED")
		e.createMember(org, "ada@acme.test")
		exchange := func(ist any) resp {
			return e.sdk("/b2b/discovery/intermediate_sessions/exchange", map[string]any{"intermediate_session_token": ist,
				"organization_id": org, "session_duration_minutes": 60}, "")
		}
		for i := range discovery.ExchangesPerIP.Limit {
			if r := exchange(fmt.Sprintf("not-an-ist-%d", i)); r.Status == 200 || r.Status == 429 {
				t.Fatalf("guess %d: %s", i, r.Raw)
			}
		}
		want(t, exchange(e.discover("ada@acme.test")["intermediate_session_token"]), 429, "too_many_requests")
	})
}

// Failed session checks are limited per address, but a valid session
// always passes (GuardUnguessable): an office behind one address reloading
// pages with expired cookies cannot lock out its colleagues.
func TestFailedSessionChecksLimitedPerAddress(t *testing.T) {
	eachEnv(t, func(t *testing.T, e *env) {
		org := e.createOrg("acme", "ALL_ALLOWED")
		token := e.sessionFor(org, "ada@acme.test")
		check := func(tok string) resp {
			return e.backend(http.MethodPost, "/v1/b2b/sessions/authenticate", map[string]any{"session_token": tok})
		}
		for i := range session.FailuresPerIP.Limit {
			want(t, check(fmt.Sprintf("not-a-session-%d", i)), 404, "session_not_found")
		}
		want(t, check("not-a-session-either"), 429, "too_many_requests")
		if r := check(token); r.Status != 200 {
			t.Fatalf("a valid session after the address's failures: %s", r.Raw)
		}
	})
}

func TestDiscoveryCodeChecksLimitedPerClientAddress(t *testing.T) {
	eachEnv(t, func(t *testing.T, e *env) {
		perEmail := discovery.CheckPerEmail.Limit - 1
		check := func(email, code string) resp {
			return e.sdk("/b2b/otps/email/discovery/authenticate", map[string]any{"email_address": email, "code": code}, "")
		}
		for i := range discovery.CheckPerIP.Limit {
			want(t, check(fmt.Sprintf("g%d@startup.test", i/perEmail), "123456"), 404, "otp_code_not_found")
		}
		if r := e.sdk("/b2b/otps/email/discovery/send", map[string]any{"email_address": "ada@startup.test"}, ""); r.Status != 200 {
			t.Fatalf("send: %s", r.Raw)
		}
		_, codes := e.lastMail("ada@startup.test")
		want(t, check("ada@startup.test", codes[0]), 429, "too_many_requests")
	})
}

func TestPasswordResetRedeemsLimitedPerAddress(t *testing.T) {
	eachEnv(t, func(t *testing.T, e *env) {
		org := e.createOrg("acme", "ALL_ALLOWED")
		e.createMember(org, "ada@acme.test")
		e.setPassword(org, "ada@acme.test", strongPassword)
		for i := range password.ResetRedeemPerIP.Limit {
			if r := e.resetWith(fmt.Sprintf("not-a-token-%d", i), strongPassword, nil); r.Status == 200 || r.Status == 429 {
				t.Fatalf("guess %d: %s", i, r.Raw)
			}
		}
		if r := e.resetStart(org, "ada@acme.test", nil); r.Status != 200 {
			t.Fatalf("reset start: %s", r.Raw)
		}
		token := e.mailedLink("ada@acme.test", "multi_tenant_passwords")
		want(t, e.resetWith(token, strongPassword+"x", nil), 429, "too_many_requests")
	})
}

func TestSMSChecksLimitedPerAddress(t *testing.T) {
	eachEnv(t, func(t *testing.T, e *env) {
		org, mid := e.mfaMember()
		perMember := mfa.SMSCheckPerMember.Limit - 1
		var guessed, ist string
		for i := range mfa.SMSCheckPerIP.Limit {
			if i%perMember == 0 {
				email := fmt.Sprintf("g%d@secure.test", i/perMember)
				guessed = e.createMember(org, email)
				ist, _ = e.mfaLogin(org, email)
			}
			want(t, e.smsAuth(org, guessed, ist, "123456", nil), 404, "otp_code_not_found")
		}
		ist, _ = e.mfaLogin(org, "ada@secure.test")
		const num = "+14155552671"
		if r := e.smsSend(org, mid, ist, num); r.Status != 200 {
			t.Fatalf("send: %s", r.Raw)
		}
		want(t, e.smsAuth(org, mid, ist, e.lastSMS(num), nil), 429, "too_many_requests")
	})
}
