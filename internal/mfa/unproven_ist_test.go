package mfa_test

import (
	"net/http"
	"net/url"
	"testing"
	"time"

	"github.com/oauth2-proxy/mockoidc"

	"github.com/latchkey/latchkey/internal/apptest"
	"github.com/latchkey/latchkey/internal/mfa"
)

// foreignSSOSession is a stranger's session for email: she makes her own
// organization, points its OIDC connection at her own identity provider
// (mockoidc here) and has it assert email, an address of someone else's
// member. The fake clock is moved to the real time first, as mockoidc
// stamps its tokens with it.
func foreignSSOSession(t *testing.T, e *apptest.Env, email string) string {
	t.Helper()
	op, err := mockoidc.Run()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = op.Shutdown() })
	e.Clock.Advance(-time.Until(e.Clock.Now()))
	own := e.CreateOrg("strangers-own", "NOT_ALLOWED", nil)
	r := e.Backend(http.MethodPost, "/v1/b2b/sso/oidc/"+own, map[string]any{"display_name": "Her IdP"})
	apptest.Want(t, r, 200, "")
	conn := r.Body["connection"].(map[string]any)["connection_id"].(string)
	cfg := op.Config()
	apptest.Want(t, e.Backend(http.MethodPut, "/v1/b2b/sso/oidc/"+own+"/connections/"+conn, map[string]any{
		"issuer": op.Issuer(), "client_id": cfg.ClientID, "client_secret": cfg.ClientSecret}), 200, "")

	// Start, the provider's redirect back, and our callback's redirect
	// carrying the sso token.
	r = e.Get("/v1/public/sso/start?" + url.Values{"public_token": {e.Project.PublicToken}, "connection_id": {conn}}.Encode())
	for step := 0; step < 2; step++ {
		if r.Status != http.StatusFound {
			t.Fatalf("sso step %d: %d %s", step, r.Status, r.Raw)
		}
		if step == 0 {
			op.QueueUser(&mockoidc.MockUser{Subject: "stranger", Email: email, EmailVerified: true})
		}
		r = e.Get(r.Header.Get("Location"))
	}
	if r.Status != http.StatusFound {
		t.Fatalf("sso callback: %d %s", r.Status, r.Raw)
	}
	ssoToken := apptest.LinkToken(t, r.Header.Get("Location"), "", "sso")
	r = e.SDK(http.MethodPost, "/b2b/sso/authenticate", map[string]any{"sso_token": ssoToken, "session_duration_minutes": 60}, "")
	apptest.Want(t, r, 200, "")
	return r.Data()["session_token"].(string)
}

// exchangedIST is what sessions/exchange answers the stranger's session
// into the victim's organization: no factor carries over, so an IST with
// primary_required and no factors, naming the victim's member.
func exchangedIST(t *testing.T, e *apptest.Env, token, org, mid string) string {
	t.Helper()
	r := e.SDK(http.MethodPost, "/b2b/sessions/exchange", map[string]any{"organization_id": org, "session_duration_minutes": 60}, token)
	apptest.Want(t, r, 200, "")
	d := r.Data()
	ist, _ := d["intermediate_session_token"].(string)
	if ist == "" || d["primary_required"] == nil || d["member_id"] != mid || d["member_session"] != nil {
		t.Fatalf("exchange into the victim's organization: %s", r.Raw)
	}
	return ist
}

// A stranger's session exchanged into another organization gives an IST
// that names the victim's member with no factor at all. With it she may
// not text the victim's phone (their send budget), guess authenticator or
// recovery codes (the victim's MFA lockout), nor enroll anything: all of
// it answers unauthorized_action and counts nothing, and the victim still
// gets their code and logs in with their own factors.
func TestExchangedISTCannotDriveMFA(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		const email, secret = "ceo@victim.test", "JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP"
		token := foreignSSOSession(t, e, email)
		e.AlignClock()

		// The victim: MFA required, an SMS number and an authenticator app
		// (with recovery codes) enrolled, SMS the default.
		victim := e.CreateOrg("victimco", "NOT_ALLOWED", nil)
		e.SetMFA(victim, "REQUIRED_FOR_ALL")
		mid := e.CreateMember(victim, email)
		const num = "+14155552671"
		ist, _ := e.MFALogin(victim, email)
		apptest.Want(t, e.SMSSend(victim, mid, ist, num), 200, "")
		apptest.Want(t, e.SMSAuth(victim, mid, ist, e.LastSMS(num), nil), 200, "")
		r := e.Backend(http.MethodPost, "/v1/b2b/totp/migrate", map[string]any{"organization_id": victim, "member_id": mid, "secret": secret})
		apptest.Want(t, r, 200, "")
		codes := r.Body["recovery_codes"].([]any)
		sent := smsCount(e, num)
		// Every attempt counted against the member or a login so far.
		counted := func() int {
			return e.Count(`SELECT COALESCE(SUM(hits), 0) FROM attempt_counters WHERE bucket LIKE $1 OR bucket LIKE $2 OR bucket LIKE $3`,
				mfa.FailuresPerMember.Name+":%", mfa.AttemptsPerIST.Name+":%", mfa.SMSCheckPerMember.Name+":%")
		}
		before := counted()

		bad := exchangedIST(t, e, token, victim, mid)
		totp := func(ist, code string) apptest.Resp {
			return e.SDK(http.MethodPost, "/b2b/totp/authenticate", map[string]any{"organization_id": victim, "member_id": mid,
				"intermediate_session_token": ist, "code": code, "session_duration_minutes": 60}, "")
		}
		recover := func(ist, code string) apptest.Resp {
			return e.SDK(http.MethodPost, "/b2b/recovery_codes/recover", map[string]any{"organization_id": victim, "member_id": mid,
				"intermediate_session_token": ist, "recovery_code": code, "session_duration_minutes": 60}, "")
		}
		good := apptest.TOTPAt(t, secret, e.Clock.Now())
		// Past every limit: the number's sends, the member's failures.
		for range mfa.FailuresPerMember.Limit + 1 {
			apptest.Want(t, e.SMSSend(victim, mid, bad, ""), 403, "unauthorized_action")
			apptest.Want(t, totp(bad, apptest.WrongCode(good)), 403, "unauthorized_action")
			apptest.Want(t, recover(bad, "aaaa-bbbb-cccc"), 403, "unauthorized_action")
			bad = exchangedIST(t, e, token, victim, mid) // new ISTs are free
		}
		// Nor the right codes, nor any enrolment or check of a code.
		apptest.Want(t, totp(bad, good), 403, "unauthorized_action")
		apptest.Want(t, recover(bad, codes[0].(string)), 403, "unauthorized_action")
		apptest.Want(t, e.SMSSend(victim, mid, bad, "+14155550188"), 403, "unauthorized_action")
		apptest.Want(t, e.SMSAuth(victim, mid, bad, "123456", nil), 403, "unauthorized_action")
		apptest.Want(t, e.Backend(http.MethodPost, "/v1/b2b/totp/authenticate", map[string]any{"organization_id": victim,
			"member_id": mid, "intermediate_session_token": bad, "code": good}), 403, "unauthorized_action")

		if n := smsCount(e, num) + smsCount(e, "+14155550188"); n != sent {
			t.Fatalf("%d texts sent with the exchanged IST", n-sent)
		}
		if n := counted(); n != before {
			t.Fatalf("%d attempts counted for the refused calls", n-before)
		}
		if m := e.MemberByID(victim, mid); m["is_locked"] != false {
			t.Fatalf("the victim is locked: %v", m)
		}

		// The victim's own login (an accepted primary factor) gets its text
		// and passes MFA with the app, then with a recovery code.
		e.Clock.Advance(time.Minute)
		ist, req := e.MFALogin(victim, email)
		if req["secondary_auth_initiated"] != "sms_otp" || smsCount(e, num) != sent+1 {
			t.Fatalf("the victim's login sent no code: %v", req)
		}
		r = totp(ist, apptest.TOTPAt(t, secret, e.Clock.Now()))
		if r.Status != 200 || r.Data()["session_token"] == "" {
			t.Fatalf("the victim's own authenticator code: %s", r.Raw)
		}
		ist, _ = e.MFALogin(victim, email)
		if r := recover(ist, codes[0].(string)); r.Status != 200 {
			t.Fatalf("the victim's own recovery code: %s", r.Raw)
		}
	})
}

// One login (IST) may try mfa.AttemptsPerIST codes in all, authenticator
// and recovery codes together: recovery codes are no second allowance, so
// a single login never walks the member's whole failure budget.
func TestRecoveryCodesCappedPerIST(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		e.AlignClock()
		org, mid, secret, codes := e.TOTPMember()
		e.Clock.Advance(time.Minute)
		ist, _ := e.MFALogin(org, "ada@secure.test")
		recover := func(code string) apptest.Resp {
			return e.SDK(http.MethodPost, "/b2b/recovery_codes/recover", map[string]any{"organization_id": org, "member_id": mid,
				"recovery_code": code, "intermediate_session_token": ist, "session_duration_minutes": 60}, "")
		}
		good := apptest.TOTPAt(t, secret, e.Clock.Now())
		apptest.Want(t, e.SDK(http.MethodPost, "/b2b/totp/authenticate", map[string]any{"organization_id": org, "member_id": mid,
			"code": apptest.WrongCode(good), "intermediate_session_token": ist}, ""), 404, "otp_code_not_found")
		for range mfa.AttemptsPerIST.Limit - 1 {
			apptest.Want(t, recover("aaaa-bbbb-cccc"), 401, "unable_to_authenticate_recovery_code")
		}
		apptest.Want(t, recover(codes[0].(string)), 429, "user_lock_limit_reached")

		// The member is not locked (fewer than FailuresPerMember misses):
		// a new login recovers with the code the refusal did not spend.
		ist, _ = e.MFALogin(org, "ada@secure.test")
		if r := recover(codes[0].(string)); r.Status != 200 || r.Data()["recovery_codes_remaining"] != float64(len(codes)-1) {
			t.Fatalf("recover in a new login: %s", r.Raw)
		}
	})
}
