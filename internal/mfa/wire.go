package mfa

import (
	"github.com/latchkey/latchkey/internal/httpapi"
	"github.com/latchkey/latchkey/internal/organization"
	"github.com/latchkey/latchkey/internal/session"
)

// SDK wire types of the MFA answers: only what @stytch/vanilla-js declares
// for each call (see internal/apptest/sdk_wire.json).

// smsSent answers otps/sms/send: the SDK declares ResponseCommon, so the
// browser learns nothing about the member or the number.
type smsSent struct{ *organization.MemberResponse }

// SDKWire implements httpapi.SDKWirer.
func (smsSent) SDKWire() any { return &httpapi.Common{} }

type sdkTOTPResponse struct {
	organization.SDKMemberResponse
	TOTPRegistrationID string   `json:"totp_registration_id"`
	Secret             string   `json:"secret,omitempty"`
	QRCode             string   `json:"qr_code,omitempty"`
	RecoveryCodes      []string `json:"recovery_codes"`
}

// SDKWire implements httpapi.SDKWirer.
func (r *TOTPResponse) SDKWire() any {
	return &sdkTOTPResponse{SDKMemberResponse: *organization.SDKMemberAnswer(r.Member, r.Organization),
		TOTPRegistrationID: r.TOTPRegistrationID, Secret: r.Secret, QRCode: r.QRCode, RecoveryCodes: r.RecoveryCodes}
}

type sdkCodesResponse struct {
	httpapi.Common
	RecoveryCodes []string `json:"recovery_codes"`
}

// SDKWire implements httpapi.SDKWirer: recovery code get and rotate
// declare the codes alone.
func (r *CodesResponse) SDKWire() any { return &sdkCodesResponse{RecoveryCodes: r.RecoveryCodes} }

type sdkRecoverResponse struct {
	session.SDKSessionResponse
	RecoveryCodesRemaining int `json:"recovery_codes_remaining"`
}

// SDKWire implements httpapi.SDKWirer: RecoveryCodeRecoverResponse is
// B2BAuthenticateResponse plus the count of codes left.
func (r *RecoverResult) SDKWire() any {
	return &sdkRecoverResponse{SDKSessionResponse: *r.AuthResponse.SDKSession(),
		RecoveryCodesRemaining: r.RecoveryCodesRemaining}
}

type backendRecoverResponse struct {
	*session.BackendAuthResponse
	RecoveryCodesRemaining int `json:"recovery_codes_remaining"`
}

// BackendWire implements httpapi.BackendWirer:
// B2BRecoveryCodesRecoverResponse is the session answer (recovering always
// ends in a session) plus the count of codes left, without the
// intermediate fields or organization_id.
func (r *RecoverResult) BackendWire() any {
	return &backendRecoverResponse{BackendAuthResponse: r.AuthResponse.Backend(0),
		RecoveryCodesRemaining: r.RecoveryCodesRemaining}
}
