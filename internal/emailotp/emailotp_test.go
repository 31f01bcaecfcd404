package emailotp_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/latchkey/latchkey/internal/apptest"
	"github.com/latchkey/latchkey/internal/emailotp"
)

func TestEmailOTP(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		org := e.CreateOrg("acme", "NOT_ALLOWED", nil)
		e.CreateMember(org, "ada@acme.test")

		if r := e.SendCode(org, "ada@acme.test"); r.Status != 200 {
			t.Fatalf("send: %s", r.Raw)
		}
		_, codes := e.LastMail("ada@acme.test")
		code := codes[0]
		apptest.Want(t, e.CheckCode(org, "ada@acme.test", apptest.WrongCode(code)), 404, "otp_code_not_found")
		apptest.Want(t, e.CheckCode(org, "ada@acme.test", "12ab56"), 400, "invalid_code")
		r := e.CheckCode(org, "ADA@acme.test", code)
		if r.Status != 200 || r.Data()["member_session"] == nil {
			t.Fatalf("right code after a wrong one: %s", r.Raw)
		}
		f := r.Data()["member_session"].(map[string]any)["authentication_factors"].([]any)[0].(map[string]any)
		if f["type"] != "email_otp" || f["delivery_method"] != "email" {
			t.Fatalf("factor = %v", f)
		}
		apptest.Want(t, e.CheckCode(org, "ada@acme.test", code), 404, "otp_code_not_found") // single use

		// Unknown members look exactly like wrong codes (no enumeration),
		// and NOT_ALLOWED organizations refuse strangers at send time.
		apptest.Want(t, e.CheckCode(org, "nobody@acme.test", code), 404, "otp_code_not_found")
		apptest.Want(t, e.SendCode(org, "nobody@acme.test"), 403, "email_jit_provisioning_not_allowed")
	})
}

func TestEmailOTPLockoutExpiryAndSupersede(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		org := e.CreateOrg("acme", "ALL_ALLOWED", nil)

		e.SendCode(org, "lock@acme.test")
		_, codes := e.LastMail("lock@acme.test")
		for range emailotp.MaxAttempts {
			apptest.Want(t, e.CheckCode(org, "lock@acme.test", apptest.WrongCode(codes[0])), 404, "otp_code_not_found")
		}
		apptest.Want(t, e.CheckCode(org, "lock@acme.test", codes[0]), 404, "otp_code_not_found") // locked

		e.SendCode(org, "late@acme.test")
		_, codes = e.LastMail("late@acme.test")
		e.Clock.Advance(emailotp.DefaultExpiry)
		apptest.Want(t, e.CheckCode(org, "late@acme.test", codes[0]), 404, "otp_code_not_found")

		e.SendCode(org, "twice@acme.test")
		_, first := e.LastMail("twice@acme.test")
		e.Clock.Advance(time.Second)
		e.SendCode(org, "twice@acme.test")
		_, second := e.LastMail("twice@acme.test")
		if first[0] != second[0] {
			apptest.Want(t, e.CheckCode(org, "twice@acme.test", first[0]), 404, "otp_code_not_found")
		}
		if r := e.CheckCode(org, "twice@acme.test", second[0]); r.Status != 200 {
			t.Fatalf("newest code: %s", r.Raw)
		}

		// Guesses are rate-limited per member beyond the per-code lockout.
		var last apptest.Resp
		for i := 0; i <= emailotp.CheckPerEmail.Limit; i++ {
			last = e.CheckCode(org, "guess@acme.test", "123456")
		}
		apptest.Want(t, last, 429, "too_many_requests")
	})
}

// A send is one transaction: the fifth send to an address goes out, the
// sixth is refused and leaves nothing behind (no code, no mail), and a
// send refused for any reason (here the organization's JIT policy) still
// counts against the client address.
func TestEmailOTPSendLimitsAndAtomicity(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		ctx := context.Background()
		org := e.CreateOrg("acme", "ALL_ALLOWED", nil)
		for i := range emailotp.SendPerEmail.Limit {
			if r := e.SendCode(org, "many@acme.test"); r.Status != 200 {
				t.Fatalf("send %d: %s", i+1, r.Raw)
			}
		}
		apptest.Want(t, e.SendCode(org, "many@acme.test"), 429, "too_many_requests")
		msgs, err := e.App.Outbox.List(ctx, "many@acme.test", 0)
		if err != nil || len(msgs) != emailotp.SendPerEmail.Limit {
			t.Fatalf("%d messages (%v), want %d: a refused send mailed a code", len(msgs), err, emailotp.SendPerEmail.Limit)
		}
		var codes int
		if err := e.App.DB.Read().QueryRowContext(ctx, `SELECT COUNT(*) FROM email_otps`).Scan(&codes); err != nil || codes != emailotp.SendPerEmail.Limit {
			t.Fatalf("%d codes stored (%v), want %d", codes, err, emailotp.SendPerEmail.Limit)
		}

		closed := e.CreateOrg("closed", "NOT_ALLOWED", nil)
		e.CreateMember(closed, "ada@closed.test")
		for range emailotp.SendPerIP.Limit - emailotp.SendPerEmail.Limit - 1 {
			apptest.Want(t, e.SendCode(closed, "stranger@closed.test"), 403, "email_jit_provisioning_not_allowed")
		}
		apptest.Want(t, e.SendCode(closed, "ada@closed.test"), 429, "too_many_requests")
	})
}

// Both code lifetimes are checked before the member is looked up, each
// reported as its own field: a refusal reads the same for a member (who
// would get the login lifetime) and a stranger (the signup one).
func TestEmailOTPSendChecksBothLifetimes(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		org := e.CreateOrg("acme", "ALL_ALLOWED", nil)
		e.CreateMember(org, "ada@acme.test")
		for _, field := range []string{"login_expiration_minutes", "signup_expiration_minutes"} {
			for _, email := range []string{"ada@acme.test", "stranger@acme.test"} {
				r := e.SDK(http.MethodPost, "/b2b/otps/email/login_or_signup", map[string]any{"organization_id": org,
					"email_address": email, field: 16}, "")
				apptest.Want(t, r, 400, "invalid_request")
				if d, _ := r.Body["error_details"].(map[string]any); d["field"] != field {
					t.Fatalf("%s to %s: error_details %v", field, email, d)
				}
			}
		}
		for _, email := range []string{"ada@acme.test", "stranger@acme.test"} {
			if msgs, err := e.App.Outbox.List(context.Background(), email, 0); err != nil || len(msgs) != 0 {
				t.Fatalf("refused sends mailed %s %d codes (%v)", email, len(msgs), err)
			}
		}
	})
}
