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
		sdk("POST /sdk/v1/b2b/otps/sms/authenticate", s.AuthenticateSMS),
		sdk("POST /sdk/v1/b2b/totp", s.CreateTOTP),
		sdk("POST /sdk/v1/b2b/totp/authenticate", s.AuthenticateTOTP),
		sdk("POST /sdk/v1/b2b/recovery_codes/recover", s.Recover),
		sdk("POST /sdk/v1/b2b/recovery_codes/rotate", s.RotateRecoveryCodes),
		sdk("GET /sdk/v1/b2b/recovery_codes", s.GetRecoveryCodes),
		sdk("DELETE /sdk/v1/b2b/organizations/members/deleteTOTP", s.DeleteSelfTOTP),
		sdk("DELETE /sdk/v1/b2b/organizations/members/deletePhoneNumber", s.DeleteSelfPhone),
		sdk("DELETE /sdk/v1/b2b/organizations/members/mfa_phone_numbers/{member_id}", s.SDKDeleteMemberPhone),
		sdk("DELETE /sdk/v1/b2b/organizations/members/totp/{member_id}", s.SDKDeleteMemberTOTP),

		backend("POST /v1/b2b/otps/sms/send", b.SendSMS),
		backend("POST /v1/b2b/otps/sms/authenticate", b.AuthenticateSMS),
		backend("POST /v1/b2b/totp", b.CreateTOTP),
		backend("POST /v1/b2b/totp/authenticate", b.AuthenticateTOTP),
		backend("POST /v1/b2b/totp/migrate", b.MigrateTOTP),
		backend("POST /v1/b2b/recovery_codes/recover", b.Recover),
		backend("GET /v1/b2b/recovery_codes/{organization_id}/{member_id}", b.GetRecoveryCodes),
		backend("POST /v1/b2b/recovery_codes/rotate", b.RotateRecoveryCodes),
	}
}
