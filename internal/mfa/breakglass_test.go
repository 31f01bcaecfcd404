package mfa_test

import (
	"net/http"
	"testing"

	"github.com/latchkey/latchkey/internal/apptest"
)

// breakglassMFAOrg is an organization that requires MFA of everyone and
// RESTRICTS it to methods, with a break-glass member glass@glass.test
// (marked through the backend's members update) and an ordinary member
// ada@glass.test.
func breakglassMFAOrg(t *testing.T, e *apptest.Env, methods ...string) (org, glass, ada string) {
	t.Helper()
	org = e.CreateOrg("glass", "NOT_ALLOWED", nil)
	e.SetMFA(org, "REQUIRED_FOR_ALL", methods...)
	glass = e.CreateMember(org, "glass@glass.test")
	if r := e.Backend(http.MethodPut, "/v1/b2b/organizations/"+org+"/members/"+glass, map[string]any{"is_breakglass": true}); r.Status != 200 {
		t.Fatalf("mark break-glass: %s", r.Raw)
	}
	return org, glass, e.CreateMember(org, "ada@glass.test")
}

// Under mfa_methods RESTRICTED to apps, a break-glass member enrolls and
// uses SMS (the API family exempts them from the list), and their next
// login starts the SMS by itself as for any member whose default is SMS;
// an ordinary member is still refused SMS.
func TestBreakglassMemberUsesSMSUnderAppOnlyMFA(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		org, glass, ada := breakglassMFAOrg(t, e, "totp")

		ist, _ := e.MFALogin(org, "glass@glass.test")
		apptest.Want(t, e.SMSSend(org, glass, ist, "+14155550170"), 200, "")
		r := e.SMSAuth(org, glass, ist, e.LastSMS("+14155550170"), nil)
		apptest.Want(t, r, 200, "")
		apptest.WantFactors(t, r.Data(), "email_otp/email/PRIMARY", "otp/sms/SECONDARY")

		_, req := e.MFALogin(org, "glass@glass.test")
		if req["secondary_auth_initiated"] != "sms_otp" {
			t.Fatalf("break-glass member's next login: mfa_required = %v", req)
		}

		ist, _ = e.MFALogin(org, "ada@glass.test")
		apptest.Want(t, e.SMSSend(org, ada, ist, "+14155550171"), 403, "operation_restricted_by_organization_mfa_methods")
		// Nor can the backend give the ordinary member a number to use.
		apptest.Want(t, e.Backend(http.MethodPut, "/v1/b2b/organizations/"+org+"/members/"+ada,
			map[string]any{"mfa_phone_number": "+14155550171"}), 403, "operation_restricted_by_organization_mfa_methods")
	})
}

// Under mfa_methods RESTRICTED to SMS, a break-glass member registers an
// authenticator app within the login and completes it with the app; an
// ordinary member may not register one.
func TestBreakglassMemberUsesTOTPUnderSMSOnlyMFA(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		e.AlignClock()
		org, glass, ada := breakglassMFAOrg(t, e, "sms_otp")

		ist, _ := e.MFALogin(org, "glass@glass.test")
		r := e.SDK(http.MethodPost, "/b2b/totp", map[string]any{"organization_id": org, "member_id": glass, "intermediate_session_token": ist}, "")
		apptest.Want(t, r, 200, "")
		codes := r.Data()["recovery_codes"].([]any)
		r = e.SDK(http.MethodPost, "/b2b/totp/authenticate", map[string]any{"organization_id": org, "member_id": glass,
			"intermediate_session_token": ist, "code": apptest.TOTPAt(t, r.Data()["secret"].(string), e.Clock.Now())}, "")
		apptest.Want(t, r, 200, "")
		apptest.WantFactors(t, r.Data(), "email_otp/email/PRIMARY", "totp/authenticator_app/SECONDARY")

		// The app's recovery codes work for them too, and are shown and rotated.
		ist, _ = e.MFALogin(org, "glass@glass.test")
		r = e.SDK(http.MethodPost, "/b2b/recovery_codes/recover", map[string]any{"organization_id": org, "member_id": glass,
			"intermediate_session_token": ist, "recovery_code": codes[0]}, "")
		apptest.Want(t, r, 200, "")
		apptest.WantFactors(t, r.Data(), "email_otp/email/PRIMARY", "recovery_codes/recovery_code/SECONDARY")
		token := r.Data()["session_token"].(string)
		if r := e.SDK(http.MethodGet, "/b2b/recovery_codes", nil, token); r.Status != 200 || len(r.Data()["recovery_codes"].([]any)) != len(codes)-1 {
			t.Fatalf("break-glass member's recovery codes get: %s", r.Raw)
		}
		apptest.Want(t, e.SDK(http.MethodPost, "/b2b/recovery_codes/rotate", map[string]any{}, token), 200, "")

		ist, _ = e.MFALogin(org, "ada@glass.test")
		apptest.Want(t, e.SDK(http.MethodPost, "/b2b/totp", map[string]any{"organization_id": org, "member_id": ada,
			"intermediate_session_token": ist}, ""), 403, "operation_restricted_by_organization_mfa_methods")
	})
}
