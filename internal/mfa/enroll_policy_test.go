package mfa_test

import (
	"net/http"
	"testing"
	"time"

	"github.com/latchkey/latchkey/internal/apptest"
)

// passwordOnlyOrg is an organization that accepts passwords only as the
// primary factor, with ada@strict.test a member who has a password, and
// the given MFA policy.
func passwordOnlyOrg(t *testing.T, e *apptest.Env, mfaPolicy string) (org, mid string) {
	t.Helper()
	org = e.CreateOrg("strict", "ALL_ALLOWED", nil)
	if r := e.Backend(http.MethodPut, "/v1/b2b/organizations/"+org, map[string]any{"auth_methods": "RESTRICTED",
		"allowed_auth_methods": []string{"password"}}); r.Status != 200 {
		t.Fatalf("restrict to passwords: %s", r.Raw)
	}
	e.SetMFA(org, mfaPolicy)
	mid = e.CreateMember(org, "ada@strict.test")
	e.SetPassword(org, "ada@strict.test", apptest.StrongPassword)
	return org, mid
}

// primaryRequiredIST logs in by email code, a method the organization does
// not accept, and returns the IST of its primary_required answer.
func primaryRequiredIST(t *testing.T, e *apptest.Env, org string) string {
	t.Helper()
	d := e.EmailLogin(org, "ada@strict.test")
	ist, _ := d["intermediate_session_token"].(string)
	if ist == "" || d["primary_required"] == nil {
		t.Fatalf("email code in a password-only organization: want primary_required, got %v", d)
	}
	return ist
}

// An IST answered primary_required (here an email code in a password-only
// organization) proves only the mailbox, which the organization does not
// trust: it may not enroll the member's first authenticator app, so the
// real member, logging in with a password, still enrolls their own.
func TestPrimaryRequiredISTCannotEnrollTOTP(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		e.AlignClock()
		org, mid := passwordOnlyOrg(t, e, "REQUIRED_FOR_ALL")
		ist := primaryRequiredIST(t, e, org)
		apptest.Want(t, e.SDK(http.MethodPost, "/b2b/totp", map[string]any{"organization_id": org, "member_id": mid,
			"intermediate_session_token": ist}, ""), 403, "unauthorized_action")
		apptest.Want(t, e.Backend(http.MethodPost, "/v1/b2b/totp", map[string]any{"organization_id": org, "member_id": mid,
			"intermediate_session_token": ist}), 403, "unauthorized_action")
		if n := e.Count(`SELECT COUNT(*) FROM totp_registrations WHERE member_id = $1`, mid); n != 0 {
			t.Fatalf("%d registrations after a refused enrollment", n)
		}

		// The member, with the accepted method, enrolls their own app.
		d := e.PasswordLogin(org, "ada@strict.test", apptest.StrongPassword).Data()
		ist2, _ := d["intermediate_session_token"].(string)
		if ist2 == "" || d["mfa_required"] == nil {
			t.Fatalf("password login: want mfa_required, got %v", d)
		}
		r := e.SDK(http.MethodPost, "/b2b/totp", map[string]any{"organization_id": org, "member_id": mid, "intermediate_session_token": ist2}, "")
		if r.Status != 200 {
			t.Fatalf("enrollment after the accepted primary factor: %s", r.Raw)
		}
		r = e.SDK(http.MethodPost, "/b2b/totp/authenticate", map[string]any{"organization_id": org, "member_id": mid,
			"intermediate_session_token": ist2, "code": apptest.TOTPAt(t, r.Data()["secret"].(string), e.Clock.Now())}, "")
		if r.Status != 200 || r.Data()["session_token"] == "" {
			t.Fatalf("first authenticator code: %s", r.Raw)
		}
		apptest.WantFactors(t, r.Data(), "password/knowledge/PRIMARY", "totp/authenticator_app/SECONDARY")
	})
}

// A pending registration (created from the member's session) cannot be
// verified, and so enrolled, through a primary_required IST either.
func TestPrimaryRequiredISTCannotVerifyPendingTOTP(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		e.AlignClock()
		org, mid := passwordOnlyOrg(t, e, "OPTIONAL")
		token, _ := e.PasswordLogin(org, "ada@strict.test", apptest.StrongPassword).Data()["session_token"].(string)
		r := e.SDK(http.MethodPost, "/b2b/totp", map[string]any{"organization_id": org, "member_id": mid}, token)
		if r.Status != 200 {
			t.Fatalf("create with a session: %s", r.Raw)
		}
		secret := r.Data()["secret"].(string)
		ist := primaryRequiredIST(t, e, org)
		apptest.Want(t, e.SDK(http.MethodPost, "/b2b/totp/authenticate", map[string]any{"organization_id": org, "member_id": mid,
			"intermediate_session_token": ist, "code": apptest.TOTPAt(t, secret, e.Clock.Now())}, ""), 403, "unauthorized_action")
		if reg := e.MemberByID(org, mid)["totp_registration_id"]; reg != "" {
			t.Fatalf("a primary_required IST verified a registration: %v", reg)
		}
	})
}

// Nor may a primary_required IST send a code to a new number or verify
// one: the SMS enrollment paths follow the same rule.
func TestPrimaryRequiredISTCannotEnrollSMS(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		org, mid := passwordOnlyOrg(t, e, "OPTIONAL")
		ist := primaryRequiredIST(t, e, org)
		const attacker, member = "+14155550101", "+14155550102"
		apptest.Want(t, e.SMSSend(org, mid, ist, attacker), 403, "unauthorized_action")
		if n := smsCount(e, attacker); n != 0 {
			t.Fatalf("%d messages to the refused number", n)
		}

		// A code the member's session sent to a new number does not enroll
		// it when redeemed with the primary_required IST.
		token, _ := e.PasswordLogin(org, "ada@strict.test", apptest.StrongPassword).Data()["session_token"].(string)
		if r := e.SDK(http.MethodPost, "/b2b/otps/sms/send", map[string]any{"organization_id": org, "member_id": mid,
			"mfa_phone_number": member}, token); r.Status != 200 {
			t.Fatalf("send from a session: %s", r.Raw)
		}
		code := e.LastSMS(member)
		apptest.Want(t, e.SMSAuth(org, mid, ist, code, nil), 403, "unauthorized_action")
		if m := e.MemberByID(org, mid); m["mfa_phone_number_verified"] != false {
			t.Fatalf("a primary_required IST verified a number: %v", m)
		}
		// The refused check did not spend the code: the session still can.
		if r := e.SDK(http.MethodPost, "/b2b/otps/sms/authenticate", map[string]any{"organization_id": org, "member_id": mid,
			"code": code}, token); r.Status != 200 {
			t.Fatalf("the session's own check: %s", r.Raw)
		}
	})
}

// Nor may it check a factor the member already has: an IST answered
// primary_required proves nothing the organization accepts, so its
// guesses must not count toward the member's MFA lockout
// (refuseUnprovenIST). The same app passes MFA once the login has used an
// accepted method.
func TestPrimaryRequiredISTCannotCheckEnrolledTOTP(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		e.AlignClock()
		org, mid := passwordOnlyOrg(t, e, "REQUIRED_FOR_ALL")
		const secret = "JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP"
		r := e.Backend(http.MethodPost, "/v1/b2b/totp/migrate", map[string]any{"organization_id": org, "member_id": mid,
			"secret": secret})
		if r.Status != 200 {
			t.Fatalf("migrate: %s", r.Raw)
		}
		e.Clock.Advance(time.Minute)
		ist := primaryRequiredIST(t, e, org)
		code := apptest.TOTPAt(t, secret, e.Clock.Now())
		apptest.Want(t, e.Backend(http.MethodPost, "/v1/b2b/totp/authenticate", map[string]any{"organization_id": org, "member_id": mid,
			"intermediate_session_token": ist, "code": code}), 403, "unauthorized_action")
		apptest.Want(t, e.SDK(http.MethodPost, "/b2b/recovery_codes/recover", map[string]any{"organization_id": org, "member_id": mid,
			"intermediate_session_token": ist, "recovery_code": "aaaa-bbbb-cccc"}, ""), 403, "unauthorized_action")

		d := e.PasswordLogin(org, "ada@strict.test", apptest.StrongPassword).Data()
		ist, _ = d["intermediate_session_token"].(string)
		r = e.Backend(http.MethodPost, "/v1/b2b/totp/authenticate", map[string]any{"organization_id": org, "member_id": mid,
			"intermediate_session_token": ist, "code": code})
		if r.Status != 200 || r.Body["session_token"] == "" {
			t.Fatalf("the app after the accepted primary factor: %s", r.Raw)
		}
	})
}
