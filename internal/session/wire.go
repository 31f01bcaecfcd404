package session

import (
	"github.com/latchkey/latchkey/internal/httpapi"
	"github.com/latchkey/latchkey/internal/organization"
)

// SDK wire types of authentication answers: the member and organization in
// their SDK forms (organization/wire.go), phone numbers masked, and only
// the fields @stytch/vanilla-js declares for the call.

// SDKSessionResponse is B2BAuthenticateResponse on the SDK face.
type SDKSessionResponse struct {
	httpapi.Common
	MemberID      string                        `json:"member_id"`
	MemberSession *MemberSession                `json:"member_session"`
	SessionToken  string                        `json:"session_token"`
	SessionJWT    string                        `json:"session_jwt"`
	Member        *organization.SDKMember       `json:"member"`
	Organization  *organization.SDKOrganization `json:"organization"`
}

// SDKWire implements httpapi.SDKWirer.
func (r *SessionResponse) SDKWire() any { return r.sdk() }

func (r *SessionResponse) sdk() *SDKSessionResponse {
	return &SDKSessionResponse{MemberID: r.MemberID, MemberSession: r.MemberSession.sdk(), SessionToken: r.SessionToken,
		SessionJWT: r.SessionJWT, Member: r.Member.SDK(), Organization: r.Organization.SDK()}
}

// sdk masks the phone numbers of the session's SMS factors.
func (ms *MemberSession) sdk() *MemberSession {
	if ms == nil {
		return nil
	}
	out := *ms
	out.AuthenticationFactors = make([]Factor, len(ms.AuthenticationFactors))
	for i, f := range ms.AuthenticationFactors {
		if f.PhoneNumberFactor != nil {
			pf := *f.PhoneNumberFactor
			pf.PhoneNumber = organization.MaskPhone(pf.PhoneNumber)
			f.PhoneNumberFactor = &pf
		}
		// Each provider's factor declares its own tenant field (or none).
		f.GoogleOAuthFactor = oauthFactor(f.GoogleOAuthFactor, false, false)
		f.MicrosoftOAuthFactor = oauthFactor(f.MicrosoftOAuthFactor, false, false)
		f.HubspotOAuthFactor = oauthFactor(f.HubspotOAuthFactor, true, false)
		f.SlackOAuthFactor = oauthFactor(f.SlackOAuthFactor, true, false)
		f.GithubOAuthFactor = oauthFactor(f.GithubOAuthFactor, false, true)
		// The browser SDK declares no SSO factor object (type and
		// delivery_method already say saml/oidc), so the connection and
		// external ids stay on the backend face.
		f.SAMLSSOFactor, f.OIDCSSOFactor = nil, nil
		// Nor a trusted auth token, access token exchange or impersonation
		// factor object (the session JWT carries them all).
		f.TrustedAuthTokenFactor, f.OAuthAccessTokenExchangeFactor, f.ImpersonatedFactor = nil, nil, nil
		out.AuthenticationFactors[i] = f
	}
	return &out
}

// oauthFactor copies an OAuth factor with only the tenant fields its
// provider's SDK type declares.
func oauthFactor(f *OAuthFactor, tenantID, tenantIDs bool) *OAuthFactor {
	if f == nil {
		return nil
	}
	out := *f
	if !tenantID {
		out.ProviderTenantID = ""
	}
	if !tenantIDs {
		out.ProviderTenantIDs = nil
	}
	return &out
}

type sdkVerdictResponse struct {
	*SDKSessionResponse
	Verdict *Verdict `json:"verdict,omitempty"`
}

// SDKWire implements httpapi.SDKWirer: the session answer with the
// verdict of its authorization check (an allowlisted addition).
func (r *VerdictResponse) SDKWire() any {
	return &sdkVerdictResponse{SDKSessionResponse: r.SessionResponse.sdk(), Verdict: r.Verdict}
}

// SDKAuthResponse is B2BAuthenticateResponseWithMFA on the SDK face.
type SDKAuthResponse struct {
	SDKSessionResponse
	IntermediateSessionToken string `json:"intermediate_session_token"`
	MemberAuthenticated      bool   `json:"member_authenticated"`
	MFARequired              any    `json:"mfa_required"`
	PrimaryRequired          any    `json:"primary_required"`
}

// SDKWire implements httpapi.SDKWirer.
func (r *AuthResponse) SDKWire() any { return r.SDK() }

// SDK returns the answer's SDK form (for wrappers that add fields).
func (r *AuthResponse) SDK() *SDKAuthResponse {
	return &SDKAuthResponse{SDKSessionResponse: *r.SessionResponse.sdk(),
		IntermediateSessionToken: r.IntermediateSessionToken, MemberAuthenticated: r.MemberAuthenticated,
		MFARequired: sdkMFARequired(r.MFARequired), PrimaryRequired: r.PrimaryRequired}
}

// SDKMFARequired masks the phone number of an mfa_required object.
func SDKMFARequired(m *MFARequired) *MFARequired {
	if m == nil || m.MemberOptions == nil {
		return m
	}
	opts := *m.MemberOptions
	opts.MFAPhoneNumber = organization.MaskPhone(opts.MFAPhoneNumber)
	return &MFARequired{MemberOptions: &opts, SecondaryAuthInitiated: m.SecondaryAuthInitiated}
}

func sdkMFARequired(v any) any {
	if m, ok := v.(*MFARequired); ok {
		return SDKMFARequired(m)
	}
	return v
}

// SDKAuthWithMethod is SDKAuthResponse plus method_id, which the SDK
// declares for the email magic-link and email-code answers only.
type SDKAuthWithMethod struct {
	SDKAuthResponse
	MethodID string `json:"method_id,omitempty"`
}

// WithMethodID answers a login whose SDK type declares method_id.
type WithMethodID struct{ *AuthResponse }

// SDKWire implements httpapi.SDKWirer.
func (w WithMethodID) SDKWire() any {
	return &SDKAuthWithMethod{SDKAuthResponse: *w.AuthResponse.SDK(), MethodID: w.MethodID}
}

// Completed answers a step that always ends in a session (an MFA factor,
// a reset by session): its SDK type is B2BAuthenticateResponse, without
// the intermediate fields. The backend face keeps the full answer.
type Completed struct{ *AuthResponse }

// SDKWire implements httpapi.SDKWirer.
func (c Completed) SDKWire() any { return c.SDKSession() }

// SDKSession is the answer's SDK form without the intermediate fields.
func (r *AuthResponse) SDKSession() *SDKSessionResponse { return r.SessionResponse.sdk() }

// backendSessionResponse is B2BSessionsAuthenticateResponse, the backend
// sessions/authenticate answer as the Node client declares it: the full
// member and organization, and no top-level member_id (the SDK's
// B2BAuthenticateResponse has one; here member_session and member carry
// it). internal/apptest/backend_wire.json holds the face to it.
type backendSessionResponse struct {
	httpapi.Common
	MemberSession *MemberSession             `json:"member_session"`
	SessionToken  string                     `json:"session_token"`
	SessionJWT    string                     `json:"session_jwt"`
	Member        *organization.Member       `json:"member"`
	Organization  *organization.Organization `json:"organization"`
}

func (r *SessionResponse) backend() *backendSessionResponse {
	return &backendSessionResponse{MemberSession: r.MemberSession, SessionToken: r.SessionToken,
		SessionJWT: r.SessionJWT, Member: r.Member, Organization: r.Organization}
}

// backendVerdictResponse is the backend answer with the verdict of its
// authorization check.
type backendVerdictResponse struct {
	*backendSessionResponse
	Verdict *Verdict `json:"verdict,omitempty"`
}
