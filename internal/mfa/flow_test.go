package mfa_test

import (
	"bytes"
	"encoding/base64"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/latchkey/latchkey/internal/apptest"
)

// The brief's end-to-end flow: email OTP login in an organization that
// requires MFA stops at mfa_required with an IST; the member enrolls an
// authenticator app with that IST and gets a session with both factors;
// a later login completes with a TOTP code, and another with a recovery
// code.
func TestMFAEndToEndTOTPAndRecoveryCode(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		e.AlignClock()
		org, mid := e.MFAMember()

		ist, req := e.MFALogin(org, "ada@secure.test")
		if req["member_options"] != nil || req["secondary_auth_initiated"] != nil {
			t.Fatalf("not-enrolled member: mfa_required = %v", req)
		}
		// No authenticator app yet, so no recovery codes to recover with.
		apptest.Want(t, e.SDK(http.MethodPost, "/b2b/recovery_codes/recover", map[string]any{"organization_id": org, "member_id": mid,
			"recovery_code": "aaaa-bbbb-cccc", "intermediate_session_token": ist}, ""), 400, "no_active_recovery_code_backed_factor")

		// Enroll: create with the IST (not consumed by create).
		r := e.SDK(http.MethodPost, "/b2b/totp", map[string]any{"organization_id": org, "member_id": mid, "intermediate_session_token": ist}, "")
		if r.Status != 200 {
			t.Fatalf("totp create: %s", r.Raw)
		}
		d := r.Data()
		secret, regID := d["secret"].(string), d["totp_registration_id"].(string)
		qr := d["qr_code"].(string)
		if secret == "" || !strings.HasPrefix(regID, "member-totp-test-") || d["member_id"] != mid {
			t.Fatalf("totp create answer: %s", r.Raw)
		}
		png, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(qr, "data:image/png;base64,"))
		if !strings.HasPrefix(qr, "data:image/png;base64,") || err != nil || !bytes.HasPrefix(png, []byte("\x89PNG\r\n\x1a\n")) {
			t.Fatalf("qr_code is not a PNG data URL: %.60s (%v)", qr, err)
		}
		codes := d["recovery_codes"].([]any)
		seen := map[any]bool{}
		for _, c := range codes {
			seen[c] = true
		}
		if len(codes) != 10 || len(seen) != 10 {
			t.Fatalf("recovery codes: %v", codes)
		}
		if apptest.MemberOf(d)["totp_registration_id"] != "" {
			t.Fatal("a pending registration is already the member's")
		}

		// A wrong code neither completes nor consumes the IST.
		totpAuth := func(ist, code string) apptest.Resp {
			return e.SDK(http.MethodPost, "/b2b/totp/authenticate", map[string]any{"organization_id": org, "member_id": mid, "code": code,
				"intermediate_session_token": ist, "session_duration_minutes": 60}, "")
		}
		good := apptest.TOTPAt(t, secret, e.Clock.Now())
		apptest.Want(t, totpAuth(ist, apptest.WrongCode(good)), 404, "otp_code_not_found")
		r = totpAuth(ist, good)
		if r.Status != 200 || r.Data()["member_session"] == nil || r.Data()["session_token"] == "" {
			t.Fatalf("totp authenticate: %s", r.Raw)
		}
		apptest.WantFactors(t, r.Data(), "email_otp/email/PRIMARY", "totp/authenticator_app/SECONDARY")
		m := apptest.MemberOf(r.Data())
		if m["totp_registration_id"] != regID || m["default_mfa_method"] != "totp" || m["mfa_enrolled"] != false {
			t.Fatalf("member after enrollment: %v", m)
		}
		token := r.Data()["session_token"].(string)
		apptest.Want(t, totpAuth(ist, apptest.TOTPAt(t, secret, e.Clock.Now().Add(30*time.Second))), 404, "intermediate_session_not_found")

		// The session keeps both factors.
		r = e.SDK(http.MethodPost, "/b2b/sessions/authenticate", map[string]any{}, token)
		if r.Status != 200 {
			t.Fatalf("session authenticate: %s", r.Raw)
		}
		apptest.WantFactors(t, r.Data(), "email_otp/email/PRIMARY", "totp/authenticator_app/SECONDARY")

		// Later: the login asks for the enrolled app.
		e.Clock.Advance(5 * time.Minute)
		ist, req = e.MFALogin(org, "ada@secure.test")
		opts, _ := req["member_options"].(map[string]any)
		if opts == nil || opts["totp_registration_id"] != regID || opts["mfa_phone_number"] != "" || req["secondary_auth_initiated"] != nil {
			t.Fatalf("enrolled member: mfa_required = %v", req)
		}
		r = totpAuth(ist, apptest.TOTPAt(t, secret, e.Clock.Now()))
		if r.Status != 200 {
			t.Fatalf("login with totp: %s", r.Raw)
		}
		apptest.WantFactors(t, r.Data(), "email_otp/email/PRIMARY", "totp/authenticator_app/SECONDARY")

		// Another login with a recovery code instead.
		e.Clock.Advance(5 * time.Minute)
		ist, _ = e.MFALogin(org, "ada@secure.test")
		recover := func(ist, code string) apptest.Resp {
			return e.SDK(http.MethodPost, "/b2b/recovery_codes/recover", map[string]any{"organization_id": org, "member_id": mid,
				"recovery_code": code, "intermediate_session_token": ist, "session_duration_minutes": 60}, "")
		}
		apptest.Want(t, recover(ist, "aaaa-bbbb-cccc"), 401, "unable_to_authenticate_recovery_code")
		r = recover(ist, strings.ToUpper(codes[3].(string)))
		if r.Status != 200 || r.Data()["recovery_codes_remaining"] != float64(9) || r.Data()["session_token"] == "" {
			t.Fatalf("recover: %s", r.Raw)
		}
		apptest.WantFactors(t, r.Data(), "email_otp/email/PRIMARY", "recovery_codes/recovery_code/SECONDARY")
		session := r.Data()["session_token"].(string)

		// Single use: the same code fails in the next login; another works.
		ist, _ = e.MFALogin(org, "ada@secure.test")
		apptest.Want(t, recover(ist, codes[3].(string)), 401, "unable_to_authenticate_recovery_code")
		if r = recover(ist, codes[4].(string)); r.Status != 200 || r.Data()["recovery_codes_remaining"] != float64(8) {
			t.Fatalf("second recovery code: %s", r.Raw)
		}

		// Get shows the codes still unused; rotate makes a fresh set.
		r = e.SDK(http.MethodGet, "/b2b/recovery_codes", nil, session)
		if got, _ := r.Data()["recovery_codes"].([]any); r.Status != 200 || len(got) != 8 || slices.Contains(got, codes[3]) ||
			slices.Contains(got, codes[4]) || got[0] != codes[0] {
			t.Fatalf("get after two codes were used: %s", r.Raw)
		}
		r = e.SDK(http.MethodPost, "/b2b/recovery_codes/rotate", map[string]any{}, session)
		fresh, _ := r.Data()["recovery_codes"].([]any)
		if r.Status != 200 || len(fresh) != 10 {
			t.Fatalf("rotate: %s", r.Raw)
		}
		r = e.SDK(http.MethodGet, "/b2b/recovery_codes", nil, session)
		if got, _ := r.Data()["recovery_codes"].([]any); r.Status != 200 || len(got) != 10 || got[0] != fresh[0] {
			t.Fatalf("get after rotate: %s", r.Raw)
		}
		r = e.Backend(http.MethodGet, "/v1/b2b/recovery_codes/"+org+"/"+mid, nil)
		if got, _ := r.Body["recovery_codes"].([]any); r.Status != 200 || len(got) != 10 {
			t.Fatalf("backend get: %s", r.Raw)
		}
		ist, _ = e.MFALogin(org, "ada@secure.test")
		apptest.Want(t, recover(ist, codes[5].(string)), 401, "unable_to_authenticate_recovery_code") // rotated away
		if r = recover(ist, fresh[9].(string)); r.Status != 200 || r.Data()["recovery_codes_remaining"] != float64(9) {
			t.Fatalf("fresh code: %s", r.Raw)
		}
	})
}
