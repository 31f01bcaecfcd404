package mfa

import (
	"context"
	"net/http"

	"github.com/latchkey/latchkey/internal/apierr"
	"github.com/latchkey/latchkey/internal/httpapi"
	"github.com/latchkey/latchkey/internal/organization"
	"github.com/latchkey/latchkey/internal/project"
	"github.com/latchkey/latchkey/internal/session"
)

// Handlers serves the MFA routes of one face (Backend; Routes makes a copy
// for each face). On the SDK face the session
// is the Basic-auth password; on the backend face it is session_token or
// session_jwt in the body, and the project secret may vouch for the member
// on calls that do not authenticate a factor.
type Handlers struct {
	Service *Service
	Backend bool
	// Sessions resolves the logged-in caller of the SDK member routes
	// (SDKDeleteMemberPhone, SDKDeleteMemberTOTP) and the member session
	// header of the backend's factor deletion.
	Sessions organization.Sessions
}

type request struct {
	OrganizationID         string   `json:"organization_id"`
	MemberID               string   `json:"member_id"`
	IntermediateSession    string   `json:"intermediate_session_token"`
	SessionToken           string   `json:"session_token"`
	SessionJWT             string   `json:"session_jwt"`
	SessionDurationMinutes *int     `json:"session_duration_minutes"`
	MFAPhoneNumber         string   `json:"mfa_phone_number"`
	Code                   string   `json:"code"`
	RecoveryCode           string   `json:"recovery_code"`
	SetMFAEnrollment       string   `json:"set_mfa_enrollment"`
	SetDefaultMFA          bool     `json:"set_default_mfa"`
	ExpirationMinutes      int      `json:"expiration_minutes"`
	Secret                 string   `json:"secret"`
	RecoveryCodes          []string `json:"recovery_codes"`
	// The SMS send's autofill fields (refused: Unsupported).
	EnableAutofill                 bool `json:"enable_autofill"`
	AutofillSessionDurationMinutes *int `json:"autofill_session_duration_minutes"`
	session.ClaimsField
	httpapi.RequestLocale
}

// Unsupported refuses what this server cannot honour (httpapi.Decode calls
// it): a language the codes are not written in, and SMS autofill. The vendor adds
// autofill metadata to the text (an app hash, a bound domain) from a
// project setting this server does not have, so a code sent without it
// would quietly not autofill. The pinned SDK's login UI never sends
// either field (only a headless caller passing them does), and
// enable_autofill false asks for nothing.
func (req request) Unsupported() error {
	return httpapi.RefuseUnsupported(httpapi.Locale("locale", req.Locale),
		httpapi.Field{Name: "enable_autofill", Set: req.EnableAutofill},
		httpapi.Field{Name: "autofill_session_duration_minutes", Set: req.AutofillSessionDurationMinutes != nil})
}

func (h Handlers) decode(r *http.Request) (request, Who, error) {
	var req request
	if err := httpapi.Decode(r, &req); err != nil {
		return req, Who{}, err
	}
	claims, err := req.Claims(r)
	if err != nil {
		return req, Who{}, err
	}
	w := h.who(r, req)
	w.CustomClaims = claims
	return req, w, nil
}

func (h Handlers) who(r *http.Request, req request) Who {
	c := project.CallerFrom(r.Context())
	w := Who{Project: c.Project, OrganizationID: req.OrganizationID, MemberID: req.MemberID,
		IST: req.IntermediateSession, Backend: h.Backend}
	if h.Backend {
		w.Session = session.Credential{Token: req.SessionToken, JWT: req.SessionJWT}
	} else {
		w.Session = session.Credential{Token: c.SessionToken}
	}
	return w
}

// pathWho names the member by path values (backend routes).
func (h Handlers) pathWho(r *http.Request) Who {
	return Who{Project: project.CallerFrom(r.Context()).Project, OrganizationID: r.PathValue("organization_id"),
		MemberID: r.PathValue("member_id"), Backend: h.Backend}
}

func memberResponse(res *MemberResult) *organization.MemberResponse {
	return &organization.MemberResponse{MemberID: res.Member.MemberID, Member: res.Member, Organization: res.Organization}
}

// SendSMS handles POST b2b/otps/sms/send.
func (h Handlers) SendSMS(r *http.Request) (any, error) {
	req, w, err := h.decode(r)
	if err != nil {
		return nil, err
	}
	res, err := h.Service.SendSMS(r.Context(), SMSSendParams{Who: w, ClientIP: httpapi.ClientIP(r), Phone: req.MFAPhoneNumber,
		Locale: req.Tag()})
	if err != nil {
		return nil, err
	}
	return smsSent{memberResponse(res)}, nil
}

// AuthenticateSMS handles POST b2b/otps/sms/authenticate.
func (h Handlers) AuthenticateSMS(r *http.Request) (any, error) {
	req, w, err := h.decode(r)
	if err != nil {
		return nil, err
	}
	res, err := h.Service.AuthenticateSMS(r.Context(), SMSAuthParams{Who: w, ClientIP: httpapi.ClientIP(r), Code: req.Code,
		DurationMinutes: req.SessionDurationMinutes, SetMFAEnrollment: req.SetMFAEnrollment, SetDefaultMFA: req.SetDefaultMFA})
	if err != nil {
		return nil, err
	}
	return session.Completed{AuthResponse: res}, nil
}

// TOTPResponse answers TOTP create and migrate.
type TOTPResponse struct {
	httpapi.Common
	MemberID           string                     `json:"member_id"`
	Member             *organization.Member       `json:"member"`
	Organization       *organization.Organization `json:"organization"`
	TOTPRegistrationID string                     `json:"totp_registration_id"`
	Secret             string                     `json:"secret,omitempty"`
	QRCode             string                     `json:"qr_code,omitempty"`
	RecoveryCodes      []string                   `json:"recovery_codes"`
}

// CreateTOTP handles POST b2b/totp.
func (h Handlers) CreateTOTP(r *http.Request) (any, error) {
	req, w, err := h.decode(r)
	if err != nil {
		return nil, err
	}
	res, err := h.Service.CreateTOTP(r.Context(), TOTPCreateParams{Who: w, ExpirationMinutes: req.ExpirationMinutes})
	if err != nil {
		return nil, err
	}
	return &TOTPResponse{MemberID: res.Member.MemberID, Member: res.Member, Organization: res.Organization,
		TOTPRegistrationID: res.RegistrationID, Secret: res.Secret, QRCode: res.QRCode, RecoveryCodes: res.RecoveryCodes}, nil
}

// AuthenticateTOTP handles POST b2b/totp/authenticate.
func (h Handlers) AuthenticateTOTP(r *http.Request) (any, error) {
	req, w, err := h.decode(r)
	if err != nil {
		return nil, err
	}
	res, err := h.Service.AuthenticateTOTP(r.Context(), TOTPAuthParams{Who: w, ClientIP: httpapi.ClientIP(r), Code: req.Code,
		DurationMinutes: req.SessionDurationMinutes, SetMFAEnrollment: req.SetMFAEnrollment, SetDefaultMFA: req.SetDefaultMFA})
	if err != nil {
		return nil, err
	}
	return session.Completed{AuthResponse: res}, nil
}

// MigrateTOTP handles POST /v1/b2b/totp/migrate (backend only).
func (h Handlers) MigrateTOTP(r *http.Request) (any, error) {
	req, w, err := h.decode(r)
	if err != nil {
		return nil, err
	}
	w.IST, w.Session = "", session.Credential{} // the project secret vouches
	res, err := h.Service.MigrateTOTP(r.Context(), TOTPMigrateParams{Who: w, Secret: req.Secret, RecoveryCodes: req.RecoveryCodes})
	if err != nil {
		return nil, err
	}
	return &TOTPResponse{MemberID: res.Member.MemberID, Member: res.Member, Organization: res.Organization,
		TOTPRegistrationID: res.RegistrationID, RecoveryCodes: res.RecoveryCodes}, nil
}

// Recover handles POST b2b/recovery_codes/recover.
func (h Handlers) Recover(r *http.Request) (any, error) {
	req, w, err := h.decode(r)
	if err != nil {
		return nil, err
	}
	return h.Service.Recover(r.Context(), RecoverParams{Who: w, ClientIP: httpapi.ClientIP(r), Code: req.RecoveryCode,
		DurationMinutes: req.SessionDurationMinutes})
}

// CodesResponse answers recovery code get and rotate.
type CodesResponse struct {
	httpapi.Common
	MemberID      string                     `json:"member_id"`
	Member        *organization.Member       `json:"member"`
	Organization  *organization.Organization `json:"organization"`
	RecoveryCodes []string                   `json:"recovery_codes"`
}

func codesResponse(res *CodesResult) *CodesResponse {
	return &CodesResponse{MemberID: res.Member.MemberID, Member: res.Member, Organization: res.Organization,
		RecoveryCodes: res.RecoveryCodes}
}

// GetRecoveryCodes handles SDK GET b2b/recovery_codes (the session's
// member) and backend GET /v1/b2b/recovery_codes/{organization_id}/{member_id}.
func (h Handlers) GetRecoveryCodes(r *http.Request) (any, error) {
	w := h.pathWho(r)
	if !h.Backend {
		w = h.who(r, request{})
	}
	res, err := h.Service.RecoveryCodes(r.Context(), w)
	if err != nil {
		return nil, err
	}
	return codesResponse(res), nil
}

// RotateRecoveryCodes handles POST b2b/recovery_codes/rotate.
func (h Handlers) RotateRecoveryCodes(r *http.Request) (any, error) {
	_, w, err := h.decode(r)
	if err != nil {
		return nil, err
	}
	res, err := h.Service.RotateRecoveryCodes(r.Context(), w)
	if err != nil {
		return nil, err
	}
	return codesResponse(res), nil
}

// DeleteSelfTOTP handles SDK DELETE b2b/organizations/members/deleteTOTP.
func (h Handlers) DeleteSelfTOTP(r *http.Request) (any, error) {
	res, err := h.Service.DeleteTOTP(r.Context(), h.who(r, request{}))
	if err != nil {
		return nil, err
	}
	return memberResponse(res), nil
}

// DeleteSelfPhone handles SDK DELETE b2b/organizations/members/deletePhoneNumber.
func (h Handlers) DeleteSelfPhone(r *http.Request) (any, error) {
	res, err := h.Service.DeletePhone(r.Context(), h.who(r, request{}))
	if err != nil {
		return nil, err
	}
	return memberResponse(res), nil
}

// DeleteMemberFactor handles the backend's
// DELETE /v1/b2b/organizations/{organization_id}/members/{a}/{b}, which
// covers both .../members/{member_id}/totp and
// .../members/mfa_phone_numbers/{member_id}. They are one route because
// ServeMux rejects the two patterns side by side (neither is more specific
// for the path .../members/mfa_phone_numbers/totp), and the same holds
// against other .../members/<literal>/{id} routes.
//
// With a member session header the member's roles must permit the
// deletion (on stytch.member, or stytch.self for their own factor), and
// the session needs a recent factor, as on the SDK face and as the
// backend's start_email_update asks: a customer's server relaying a
// stolen or unattended session must not strip a member's factors.
func (h Handlers) DeleteMemberFactor(r *http.Request) (any, error) {
	a, b := r.PathValue("a"), r.PathValue("b")
	var memberID, action string
	var del func(context.Context, Who) (*MemberResult, error)
	switch {
	case a == "mfa_phone_numbers" && b != "":
		memberID, action, del = b, organization.ActionDeleteMFAPhone, h.Service.DeletePhone
	case b == "totp":
		memberID, action, del = a, organization.ActionDeleteMFATOTP, h.Service.DeleteTOTP
	default:
		return nil, apierr.New(apierr.RouteNotFound)
	}
	c, err := organization.BackendCaller(r, h.Service.d.Orgs, h.Sessions, r.PathValue("organization_id"))
	if err != nil {
		return nil, err
	}
	if err := c.AuthorizeMember(r.Context(), memberID, action); err != nil {
		return nil, err
	}
	// The project secret alone is no session and needs no step-up.
	if c.Member != nil {
		if err := c.StepUp(); err != nil {
			return nil, err
		}
	}
	res, err := del(r.Context(), Who{Project: c.Project, OrganizationID: c.Organization.OrganizationID, MemberID: memberID, Backend: true})
	if err != nil {
		return nil, err
	}
	return memberResponse(res), nil
}

// SDKDeleteMemberPhone handles SDK DELETE b2b/organizations/members/mfa_phone_numbers/{member_id}.
func (h Handlers) SDKDeleteMemberPhone(r *http.Request) (any, error) {
	return h.sdkDeleteFactor(r, organization.ActionDeleteMFAPhone, h.Service.DeletePhone)
}

// SDKDeleteMemberTOTP handles SDK DELETE b2b/organizations/members/totp/{member_id}.
func (h Handlers) SDKDeleteMemberTOTP(r *http.Request) (any, error) {
	return h.sdkDeleteFactor(r, organization.ActionDeleteMFATOTP, h.Service.DeleteTOTP)
}

// sdkDeleteFactor removes a factor of a member of the caller's
// organization when the caller may perform action on that member (on
// stytch.member, or stytch.self for their own).
func (h Handlers) sdkDeleteFactor(r *http.Request, action string, del func(context.Context, Who) (*MemberResult, error)) (any, error) {
	c, err := organization.CallerFromSession(r, h.Service.d.Orgs, h.Sessions)
	if err != nil {
		return nil, err
	}
	id := r.PathValue("member_id")
	if err := c.AuthorizeMember(r.Context(), id, action); err != nil {
		return nil, err
	}
	if err := c.StepUp(); err != nil {
		return nil, err
	}
	res, err := del(r.Context(), Who{Project: c.Project, OrganizationID: c.Organization.OrganizationID, MemberID: id, Vouched: true})
	if err != nil {
		return nil, err
	}
	return memberResponse(res), nil
}
