package mfa_test

import (
	"net/http"
	"testing"
	"time"

	"github.com/latchkey/latchkey/internal/apptest"
	"github.com/latchkey/latchkey/internal/stepup"
)

// The backend face: the project secret may start an enrollment for a
// member it names, and completes a login with the IST it was handed, or
// steps up a session named by session_token / session_jwt.
func TestMFABackendFace(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		e.AlignClock()
		org, mid := e.MFAMember()
		r := e.Backend(http.MethodPost, "/v1/b2b/totp", map[string]any{"organization_id": org, "member_id": mid})
		if r.Status != 200 || r.Body["secret"] == "" || r.Body["member_id"] != mid {
			t.Fatalf("backend totp create: %s", r.Raw)
		}
		secret := r.Body["secret"].(string)
		codes := r.Body["recovery_codes"].([]any)
		apptest.Want(t, e.Backend(http.MethodPost, "/v1/b2b/totp", map[string]any{"organization_id": org}), 400, "invalid_request")
		apptest.Want(t, e.Backend(http.MethodPost, "/v1/b2b/totp", map[string]any{"organization_id": org, "member_id": "member-test-nope"}),
			404, "member_not_found")

		ist, _ := e.MFALogin(org, "ada@secure.test")
		apptest.Want(t, e.Backend(http.MethodPost, "/v1/b2b/totp/authenticate", map[string]any{"organization_id": org, "member_id": mid,
			"code": apptest.TOTPAt(t, secret, e.Clock.Now())}), 401, "user_unauthenticated")
		r = e.Backend(http.MethodPost, "/v1/b2b/totp/authenticate", map[string]any{"organization_id": org, "member_id": mid,
			"intermediate_session_token": ist, "code": apptest.TOTPAt(t, secret, e.Clock.Now()), "session_duration_minutes": 30})
		if tok, _ := r.Body["session_token"].(string); r.Status != 200 || tok == "" {
			t.Fatalf("backend totp authenticate: %s", r.Raw)
		}
		jwt := r.Body["session_jwt"].(string)

		// Step up by JWT with a recovery code: the new session replaces the old.
		e.Clock.Advance(time.Minute)
		r = e.Backend(http.MethodPost, "/v1/b2b/recovery_codes/recover", map[string]any{"organization_id": org, "member_id": mid,
			"session_jwt": jwt, "recovery_code": codes[0]})
		if r.Status != 200 || r.Body["recovery_codes_remaining"] != float64(9) {
			t.Fatalf("backend recover with a session: %s", r.Raw)
		}
		apptest.WantFactors(t, r.Body, "email_otp/email/PRIMARY", "totp/authenticator_app/SECONDARY", "recovery_codes/recovery_code/SECONDARY")
		apptest.Want(t, e.Backend(http.MethodPost, "/v1/b2b/sessions/authenticate", map[string]any{"session_jwt": jwt}), 404, "session_not_found")
		adaToken := r.Body["session_token"].(string)

		// Rotation through the backend, for a member it names.
		r = e.Backend(http.MethodPost, "/v1/b2b/recovery_codes/rotate", map[string]any{"organization_id": org, "member_id": mid})
		if got, _ := r.Body["recovery_codes"].([]any); r.Status != 200 || len(got) != 10 || got[0] == codes[0] {
			t.Fatalf("backend rotate: %s", r.Raw)
		}

		// A session of one member cannot act for another.
		bob := e.CreateMember(org, "bob@secure.test")
		apptest.Want(t, e.Backend(http.MethodPost, "/v1/b2b/recovery_codes/recover", map[string]any{"organization_id": org, "member_id": bob,
			"session_token": adaToken, "recovery_code": codes[1]}), 403, "unauthorized_action")
		apptest.Want(t, e.SDK(http.MethodPost, "/b2b/recovery_codes/recover", map[string]any{"recovery_code": codes[1]}, ""), 401, "user_unauthenticated")
	})
}

// A discovery IST (email only) cannot be used for MFA: it must first be
// exchanged for an organization, which answers mfa_required.
func TestMFARefusesDiscoveryIST(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		org, mid := e.MFAMember()
		d := e.Discover("ada@secure.test")
		ist := d["intermediate_session_token"].(string)
		apptest.Want(t, e.SMSSend(org, mid, ist, "+14155552671"), 404, "intermediate_session_not_found")
		r := e.SDK(http.MethodPost, "/b2b/discovery/intermediate_sessions/exchange", map[string]any{"organization_id": org,
			"intermediate_session_token": ist, "session_duration_minutes": 60}, "")
		mfaIST, _ := r.Data()["intermediate_session_token"].(string)
		if r.Status != 200 || r.Data()["mfa_required"] == nil || mfaIST == "" {
			t.Fatalf("exchange in a required organization: %s", r.Raw)
		}
		if r := e.SMSSend(org, mid, mfaIST, "+14155552671"); r.Status != 200 {
			t.Fatalf("send with the organization IST: %s", r.Raw)
		}
		r = e.SMSAuth(org, mid, mfaIST, e.LastSMS("+14155552671"), nil)
		if r.Status != 200 {
			t.Fatalf("sms after discovery: %s", r.Raw)
		}
		if f := apptest.SessionFactors(r.Data()); len(f) != 2 || f[1] != "otp/sms/SECONDARY" {
			t.Fatalf("factors after discovery + sms: %v", f)
		}
	})
}

// A login in progress has proven one factor only, so its IST may not
// rotate the recovery codes that guard the second, on either face; the
// codes it was refused are unchanged and still complete the login.
func TestMFALoginInProgressCannotRotateRecoveryCodes(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		e.AlignClock()
		org, mid, _, codes := e.TOTPMember()
		ist, _ := e.MFALogin(org, "ada@secure.test")
		apptest.Want(t, e.SDK(http.MethodPost, "/b2b/recovery_codes/rotate", map[string]any{"intermediate_session_token": ist}, ""),
			401, "user_unauthenticated")
		apptest.Want(t, e.Backend(http.MethodPost, "/v1/b2b/recovery_codes/rotate", map[string]any{"organization_id": org,
			"member_id": mid, "intermediate_session_token": ist}), 401, "user_unauthenticated")
		r := e.Backend(http.MethodPost, "/v1/b2b/recovery_codes/recover", map[string]any{"organization_id": org,
			"member_id": mid, "intermediate_session_token": ist, "recovery_code": codes[0], "session_duration_minutes": 30})
		if tok, _ := r.Body["session_token"].(string); r.Status != 200 || tok == "" {
			t.Fatalf("recover with an unrotated code: %s", r.Raw)
		}
	})
}

// The backend's factor deletion acting for a member session (the
// X-Stytch-Member-Session header) needs a recent factor, as the same
// face's start_email_update does and with the same answer; a fresh
// session may delete, and the project secret alone needs no step-up.
func TestBackendFactorDeletionForAMemberSessionNeedsAStepUp(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		e.AlignClock()
		org := e.CreateOrg("acme", "ALL_ALLOWED", nil)
		mid := e.CreateAdmin(org, "ada@acme.test")
		bob := e.CreateMember(org, "bob@acme.test")
		secret, _, token := e.EnrollTOTPWithSession(org, "ada@acme.test", nil)
		_, _, bobToken := e.EnrollTOTPWithSession(org, "bob@acme.test", nil)
		e.SessionSMS(org, bob, bobToken, "+14155550123", nil)

		asMember := func(method, path string, body any, session string) apptest.Resp {
			return e.Do(method, path, body, http.Header{"X-Stytch-Member-Session": {session}}, e.Project.Project.ID, e.Project.Secret)
		}
		members := "/v1/b2b/organizations/" + org + "/members/"
		e.Clock.Advance(stepup.Window + time.Minute)
		apptest.Want(t, asMember(http.MethodPost, members+bob+"/start_email_update", map[string]any{"email_address": "bob2@acme.test"}, token),
			403, "session_too_old")
		apptest.Want(t, asMember(http.MethodDelete, members+bob+"/totp", nil, token), 403, "session_too_old")
		apptest.Want(t, asMember(http.MethodDelete, members+"mfa_phone_numbers/"+bob, nil, token), 403, "session_too_old")
		apptest.Want(t, asMember(http.MethodDelete, members+mid+"/totp", nil, token), 403, "session_too_old")
		if m := e.MemberByID(org, bob); m["totp_registration_id"] == "" || m["mfa_phone_number"] == "" {
			t.Fatalf("a refused deletion removed a factor: %v", m)
		}

		// A fresh factor (an authenticator code) allows it.
		r := e.SDK(http.MethodPost, "/b2b/totp/authenticate", map[string]any{"organization_id": org, "member_id": mid,
			"code": apptest.TOTPAt(t, secret, e.Clock.Now())}, token)
		if r.Status != 200 {
			t.Fatalf("step up: %s", r.Raw)
		}
		fresh := r.Data()["session_token"].(string)
		if r := asMember(http.MethodDelete, members+bob+"/totp", nil, fresh); r.Status != 200 {
			t.Fatalf("totp deletion with a fresh session: %s", r.Raw)
		}
		if r := asMember(http.MethodDelete, members+"mfa_phone_numbers/"+bob, nil, fresh); r.Status != 200 {
			t.Fatalf("phone deletion with a fresh session: %s", r.Raw)
		}
		if m := e.MemberByID(org, bob); m["totp_registration_id"] != "" || m["mfa_phone_number"] != "" {
			t.Fatalf("factors left after the deletions: %v", m)
		}

		// The project secret alone is no session to step up.
		e.Clock.Advance(stepup.Window + time.Minute)
		if r := e.Backend(http.MethodDelete, members+mid+"/totp", nil); r.Status != 200 {
			t.Fatalf("totp deletion with the project secret: %s", r.Raw)
		}
	})
}
