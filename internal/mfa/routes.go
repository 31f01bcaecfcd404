package mfa

import "github.com/latchkey/latchkey/internal/httpapi"

// Routes lists the MFA routes on both API faces: SMS codes, authenticator
// apps, recovery codes, and deleting a member's factors. Each face gets its
// own copy of h with Backend set to match, since the faces find the member
// differently. The backend's factor deletion is on the shared
// member-subresource route, which the root owns (it is passwords' too).
func (h Handlers) Routes() []httpapi.Route {
	s, b := h, h
	s.Backend, b.Backend = false, true
	sdk, backend := httpapi.SDKRoute, httpapi.BackendRoute
	return []httpapi.Route{
		sdk("POST /sdk/v1/b2b/otps/sms/send", s.SendSMS),
		sdk("POST /sdk/v1/b2b/otps/sms/authenticate", s.AuthenticateSMS).LogsLogin("sms_otp"),
		sdk("POST /sdk/v1/b2b/totp", s.CreateTOTP).LogsFactorChange("totp_created"),
		sdk("POST /sdk/v1/b2b/totp/authenticate", s.AuthenticateTOTP).LogsLogin("totp"),
		sdk("POST /sdk/v1/b2b/recovery_codes/recover", s.Recover).LogsLogin("recovery_code"),
		sdk("POST /sdk/v1/b2b/recovery_codes/rotate", s.RotateRecoveryCodes).LogsFactorChange("recovery_codes_rotated"),
		sdk("GET /sdk/v1/b2b/recovery_codes", s.GetRecoveryCodes),
		sdk("DELETE /sdk/v1/b2b/organizations/members/deleteTOTP", s.DeleteSelfTOTP).LogsFactorChange("totp_deleted"),
		sdk("DELETE /sdk/v1/b2b/organizations/members/deletePhoneNumber", s.DeleteSelfPhone).LogsFactorChange("phone_deleted"),
		sdk("DELETE /sdk/v1/b2b/organizations/members/mfa_phone_numbers/{member_id}", s.SDKDeleteMemberPhone).LogsFactorChange("phone_deleted"),
		sdk("DELETE /sdk/v1/b2b/organizations/members/totp/{member_id}", s.SDKDeleteMemberTOTP).LogsFactorChange("totp_deleted"),

		backend("POST /v1/b2b/otps/sms/send", b.SendSMS),
		backend("POST /v1/b2b/otps/sms/authenticate", b.AuthenticateSMS).LogsLogin("sms_otp"),
		backend("POST /v1/b2b/totp", b.CreateTOTP).LogsFactorChange("totp_created"),
		backend("POST /v1/b2b/totp/authenticate", b.AuthenticateTOTP).LogsLogin("totp"),
		backend("POST /v1/b2b/totp/migrate", b.MigrateTOTP).LogsFactorChange("totp_migrated"),
		backend("POST /v1/b2b/recovery_codes/recover", b.Recover).LogsLogin("recovery_code"),
		backend("GET /v1/b2b/recovery_codes/{organization_id}/{member_id}", b.GetRecoveryCodes),
		backend("POST /v1/b2b/recovery_codes/rotate", b.RotateRecoveryCodes).LogsFactorChange("recovery_codes_rotated"),
	}
}
