package app_test

import (
	"fmt"
	"net/http"
	"testing"

	"github.com/latchkey/latchkey/internal/apptest"
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
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		org := e.CreateOrg("acme", "ALL_ALLOWED", nil)
		perEmail := emailotp.CheckPerEmail.Limit - 1
		for i := range emailotp.CheckPerIP.Limit {
			apptest.Want(t, e.CheckCode(org, fmt.Sprintf("g%d@acme.test", i/perEmail), "123456"), 404, "otp_code_not_found")
		}
		if r := e.SendCode(org, "ada@acme.test"); r.Status != 200 {
			t.Fatalf("send: %s", r.Raw)
		}
		_, codes := e.LastMail("ada@acme.test")
		apptest.Want(t, e.CheckCode(org, "ada@acme.test", codes[0]), 429, "too_many_requests")
	})
}

func TestMagicLinkRedeemsLimitedPerAddress(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		org := e.CreateOrg("acme", "ALL_ALLOWED", nil)
		for i := range magiclink.RedeemPerIP.Limit {
			if r := e.RedeemLink(fmt.Sprintf("not-a-token-%d", i), nil); r.Status == 200 || r.Status == 429 {
				t.Fatalf("guess %d: %s", i, r.Raw)
			}
		}
		if r := e.SendLink(org, "ada@acme.test", nil); r.Status != 200 {
			t.Fatalf("send: %s", r.Raw)
		}
		links, _ := e.LastMail("ada@acme.test")
		apptest.Want(t, e.RedeemLink(apptest.MagicLinkToken(t, links[0]), nil), 429, "too_many_requests")
	})
}

// Wrong ISTs at the discovery exchange are limited per address, in the
// count every IST route shares.
func TestDiscoveryExchangesLimitedPerAddress(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		org := e.CreateOrg("acme", "ALL_ALLOWED", nil)
		e.CreateMember(org, "ada@acme.test")
		exchange := func(ist any) apptest.Resp {
			return e.SDK(http.MethodPost, "/b2b/discovery/intermediate_sessions/exchange", map[string]any{"intermediate_session_token": ist,
				"organization_id": org, "session_duration_minutes": 60}, "")
		}
		for i := range discovery.ExchangesPerIP.Limit {
			if r := exchange(fmt.Sprintf("not-an-ist-%d", i)); r.Status == 200 || r.Status == 429 {
				t.Fatalf("guess %d: %s", i, r.Raw)
			}
		}
		// Past the limit a wrong IST is refused, and a correct one still
		// passes (GuardUnguessable, as every IST route): an address's
		// wrong ISTs never refuse its people's own logins.
		apptest.Want(t, exchange("not-an-ist-either"), 429, "too_many_requests")
		apptest.Want(t, exchange(e.Discover("ada@acme.test")["intermediate_session_token"]), 200, "")
	})
}

// Failed session checks are limited per address, but a valid session
// always passes (GuardUnguessable): an office behind one address reloading
// pages with expired cookies cannot lock out its colleagues. The address
// is the end user's on the SDK face; the backend face's is the customer's
// server, and its stale tokens keep their 404 (ratelimit.OnBehalf).
func TestFailedSessionChecksLimitedPerAddress(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		org := e.CreateOrg("acme", "ALL_ALLOWED", nil)
		token := e.SessionFor(org, "ada@acme.test")
		check := func(tok string) apptest.Resp {
			return e.SDK(http.MethodPost, "/b2b/sessions/authenticate", map[string]any{}, tok)
		}
		for i := range session.FailuresPerIP.Limit {
			apptest.Want(t, check(fmt.Sprintf("not-a-session-%d", i)), 404, "session_not_found")
		}
		apptest.Want(t, check("not-a-session-either"), 429, "too_many_requests")
		if r := check(token); r.Status != 200 {
			t.Fatalf("a valid session after the address's failures: %s", r.Raw)
		}
		apptest.Want(t, e.Backend(http.MethodPost, "/v1/b2b/sessions/authenticate",
			map[string]any{"session_token": "not-a-session-from-the-server"}), 404, "session_not_found")
	})
}

func TestDiscoveryCodeChecksLimitedPerClientAddress(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		perEmail := discovery.CheckPerEmail.Limit - 1
		check := func(email, code string) apptest.Resp {
			return e.SDK(http.MethodPost, "/b2b/otps/email/discovery/authenticate", map[string]any{"email_address": email, "code": code}, "")
		}
		for i := range discovery.CheckPerIP.Limit {
			apptest.Want(t, check(fmt.Sprintf("g%d@startup.test", i/perEmail), "123456"), 404, "otp_code_not_found")
		}
		if r := e.SDK(http.MethodPost, "/b2b/otps/email/discovery/send", map[string]any{"email_address": "ada@startup.test"}, ""); r.Status != 200 {
			t.Fatalf("send: %s", r.Raw)
		}
		_, codes := e.LastMail("ada@startup.test")
		apptest.Want(t, check("ada@startup.test", codes[0]), 429, "too_many_requests")
	})
}

func TestPasswordResetRedeemsLimitedPerAddress(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		org := e.CreateOrg("acme", "ALL_ALLOWED", nil)
		e.CreateMember(org, "ada@acme.test")
		e.SetPassword(org, "ada@acme.test", apptest.StrongPassword)
		for i := range password.ResetRedeemPerIP.Limit {
			if r := e.ResetWith(fmt.Sprintf("not-a-token-%d", i), apptest.StrongPassword, nil); r.Status == 200 || r.Status == 429 {
				t.Fatalf("guess %d: %s", i, r.Raw)
			}
		}
		if r := e.ResetStart(org, "ada@acme.test", nil); r.Status != 200 {
			t.Fatalf("reset start: %s", r.Raw)
		}
		token := e.ResetLink("ada@acme.test", "multi_tenant_passwords")
		apptest.Want(t, e.ResetWith(token, apptest.StrongPassword+"x", nil), 429, "too_many_requests")
	})
}

func TestSMSChecksLimitedPerAddress(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		org, mid := e.MFAMember()
		perMember := mfa.SMSCheckPerMember.Limit - 1
		var guessed, ist string
		for i := range mfa.SMSCheckPerIP.Limit {
			if i%perMember == 0 {
				email := fmt.Sprintf("g%d@secure.test", i/perMember)
				guessed = e.CreateMember(org, email)
				ist, _ = e.MFALogin(org, email)
			}
			apptest.Want(t, e.SMSAuth(org, guessed, ist, "123456", nil), 404, "otp_code_not_found")
		}
		ist, _ = e.MFALogin(org, "ada@secure.test")
		const num = "+14155552671"
		if r := e.SMSSend(org, mid, ist, num); r.Status != 200 {
			t.Fatalf("send: %s", r.Raw)
		}
		apptest.Want(t, e.SMSAuth(org, mid, ist, e.LastSMS(num), nil), 429, "too_many_requests")
	})
}

// A customer's server calls the backend face for all of its users from one
// address, so the limits per end-user address do not apply to it
// (ratelimit.OnBehalf): neither the sends of many people nor a stranger's
// password guesses across many accounts stop everyone else. The limits per
// account still do. (The tests above are the same limits on the SDK face.)
func TestBackendFaceIsNotLimitedPerClientAddress(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		org := e.CreateOrg("acme", "ALL_ALLOWED", nil)
		send := func(email string) apptest.Resp {
			return e.Backend(http.MethodPost, "/v1/b2b/otps/email/login_or_signup",
				map[string]any{"email_address": email, "organization_id": org})
		}
		for i := range emailotp.SendPerIP.Limit + 5 {
			if r := send(fmt.Sprintf("u%d@acme.test", i)); r.Status != 200 {
				t.Fatalf("send %d of one server: %s", i, r.Raw)
			}
		}
		for range emailotp.SendPerEmail.Limit - 1 {
			if r := send("u0@acme.test"); r.Status != 200 {
				t.Fatalf("send to u0: %s", r.Raw)
			}
		}
		apptest.Want(t, send("u0@acme.test"), 429, "too_many_requests")

		login := func(email, pw string) apptest.Resp {
			return e.Backend(http.MethodPost, "/v1/b2b/passwords/authenticate",
				map[string]any{"organization_id": org, "email_address": email, "password": pw})
		}
		const strong = "correct horse battery staple 42"
		e.CreateMember(org, "bob@acme.test")
		e.SetPassword(org, "bob@acme.test", strong)
		perEmail := password.EmailIPLockout.Limit - 1
		for i := range password.IPLockout.Limit + 1 {
			apptest.Want(t, login(fmt.Sprintf("guess%d@acme.test", i/perEmail), "nope"), 401, "unauthorized_credentials")
		}
		apptest.Want(t, login("bob@acme.test", strong), 200, "")
		for range password.EmailIPLockout.Limit {
			apptest.Want(t, login("bob@acme.test", "nope"), 401, "unauthorized_credentials")
		}
		apptest.Want(t, login("bob@acme.test", strong), 429, "user_lock_limit_reached")
	})
}
