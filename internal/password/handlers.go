package password

import (
	"net/http"

	"github.com/latchkey/latchkey/internal/apierr"
	"github.com/latchkey/latchkey/internal/httpapi"
	"github.com/latchkey/latchkey/internal/organization"
	"github.com/latchkey/latchkey/internal/password/pwhash"
	"github.com/latchkey/latchkey/internal/project"
	"github.com/latchkey/latchkey/internal/session"
)

// Handlers serves the password routes. Where the two faces differ (who the
// session is, what a reset start may reveal) there is one handler per face.
// Sessions resolves the logged-in member behind SDK member routes.
type Handlers struct {
	Service  *Service
	Sessions organization.Sessions
}

type strengthRequest struct {
	Password     string `json:"password"`
	EmailAddress string `json:"email_address"`
}

// StrengthResponse answers strength_check.
type StrengthResponse struct {
	httpapi.Common
	Verdict
}

// StrengthCheck handles POST b2b/passwords/strength_check (both faces).
func (h Handlers) StrengthCheck(r *http.Request) (any, error) {
	var req strengthRequest
	if err := httpapi.Decode(r, &req); err != nil {
		return nil, err
	}
	p := project.CallerFrom(r.Context()).Project
	if err := h.Service.d.Limiter.Allow(r.Context(), StrengthCheckPerIP, p.ID+"|"+httpapi.ClientIP(r)); err != nil {
		return nil, err
	}
	v, err := h.Service.Check(r.Context(), p, req.Password, req.EmailAddress)
	if err != nil {
		return nil, err
	}
	return &StrengthResponse{Verdict: *v}, nil
}

type authRequest struct {
	OrganizationID         string `json:"organization_id"`
	EmailAddress           string `json:"email_address"`
	Password               string `json:"password"`
	SessionDurationMinutes *int   `json:"session_duration_minutes"`
	IntermediateSession    string `json:"intermediate_session_token"`
	// CodeVerifier is accepted and not checked. The browser SDK (6.3.0)
	// sends it on both password logins whenever the device has a PKCE
	// transaction open (a magic link or reset start made earlier), not
	// because the login asked for one: a password login starts no
	// transaction, so no challenge exists to check it against, and the
	// vendor's API reference lists no such field here. Refusing it would
	// fail the SDK's password login after an unfinished magic link. The
	// resets, which do carry a challenge, check theirs.
	CodeVerifier string `json:"code_verifier"`
	session.Held
	session.ClaimsField
	httpapi.RequestLocale
}

// Authenticate handles POST b2b/passwords/authenticate (both faces).
func (h Handlers) Authenticate(r *http.Request) (any, error) {
	var req authRequest
	if err := httpapi.Decode(r, &req); err != nil {
		return nil, err
	}
	claims, err := req.Claims(r)
	if err != nil {
		return nil, err
	}
	return h.Service.Authenticate(req.In(r.Context()), AuthParams{Project: project.CallerFrom(r.Context()).Project,
		ClientIP: httpapi.ClientIP(r), OrganizationID: req.OrganizationID, Email: req.EmailAddress, Password: req.Password,
		DurationMinutes: req.SessionDurationMinutes, IntermediateSessionToken: req.IntermediateSession, Session: req.Held,
		CustomClaims: claims})
}

type resetStartRequest struct {
	OrganizationID                 string `json:"organization_id"`
	EmailAddress                   string `json:"email_address"`
	ResetPasswordRedirectURL       string `json:"reset_password_redirect_url"`
	LoginRedirectURL               string `json:"login_redirect_url"`
	ResetPasswordExpirationMinutes int    `json:"reset_password_expiration_minutes"`
	ResetPasswordTemplateID        string `json:"reset_password_template_id"`
	VerifyEmailTemplateID          string `json:"verify_email_template_id"`
	Locale                         string `json:"locale"`
	CodeChallenge                  string `json:"code_challenge"`
}

// Unsupported refuses the fields this server cannot honour (httpapi.Decode calls it).
func (req resetStartRequest) Unsupported() error {
	return httpapi.RefuseUnsupported(httpapi.Set("reset_password_template_id", req.ResetPasswordTemplateID), httpapi.Set("verify_email_template_id", req.VerifyEmailTemplateID), httpapi.Locale("locale", req.Locale))
}

func (h Handlers) resetStart(r *http.Request) (*StartResult, error) {
	var req resetStartRequest
	if err := httpapi.Decode(r, &req); err != nil {
		return nil, err
	}
	return h.Service.StartEmailReset(r.Context(), StartParams{Project: project.CallerFrom(r.Context()).Project,
		ClientIP: httpapi.ClientIP(r), OrganizationID: req.OrganizationID, Email: req.EmailAddress,
		ResetRedirectURL: req.ResetPasswordRedirectURL, LoginRedirectURL: req.LoginRedirectURL,
		ExpiryMinutes: req.ResetPasswordExpirationMinutes, CodeChallenge: req.CodeChallenge,
		Locale: httpapi.LocaleTag(req.Locale)})
}

// SDKResetStart handles SDK POST b2b/passwords/email/reset/start. Anyone
// holding the public token can call it, so the answer is the same empty
// response whether or not the address is a member.
func (h Handlers) SDKResetStart(r *http.Request) (any, error) {
	if _, err := h.resetStart(r); err != nil {
		return nil, err
	}
	return &httpapi.Common{}, nil
}

// ResetStartResponse is the backend face's reset start answer: the caller
// holds the project secret and may know who the member is.
type ResetStartResponse struct {
	httpapi.Common
	MemberID      string               `json:"member_id"`
	MemberEmailID string               `json:"member_email_id"`
	Member        *organization.Member `json:"member"`
}

// BackendResetStart handles POST /v1/b2b/passwords/email/reset/start.
func (h Handlers) BackendResetStart(r *http.Request) (any, error) {
	res, err := h.resetStart(r)
	if err != nil {
		return nil, err
	}
	out := &ResetStartResponse{}
	if res.Member != nil {
		out.MemberID, out.MemberEmailID, out.Member = res.Member.MemberID, res.Member.EmailID, res.Member
	}
	return out, nil
}

type resetRequest struct {
	PasswordResetToken     string `json:"password_reset_token"`
	Password               string `json:"password"`
	SessionDurationMinutes *int   `json:"session_duration_minutes"`
	CodeVerifier           string `json:"code_verifier"`
	PKCECodeVerifier       string `json:"pkce_code_verifier"` // the discovery reset's name for it
	IntermediateSession    string `json:"intermediate_session_token"`
	session.ClaimsField
	httpapi.RequestLocale
}

// ResetByEmail handles POST b2b/passwords/email/reset (both faces).
func (h Handlers) ResetByEmail(r *http.Request) (any, error) {
	var req resetRequest
	if err := httpapi.Decode(r, &req); err != nil {
		return nil, err
	}
	claims, err := req.Claims(r)
	if err != nil {
		return nil, err
	}
	res, err := h.Service.ResetByEmail(req.In(r.Context()), ResetParams{Project: project.CallerFrom(r.Context()).Project,
		ClientIP: httpapi.ClientIP(r), Token: req.PasswordResetToken, Password: req.Password, CodeVerifier: req.CodeVerifier,
		DurationMinutes: req.SessionDurationMinutes, IntermediateSessionToken: req.IntermediateSession, CustomClaims: claims})
	if err != nil {
		return nil, err
	}
	return &EmailResetResponse{AuthResponse: res, MemberEmailID: res.Member.EmailID}, nil
}

// EmailResetResponse is the email reset answer: the common authenticate
// answer plus member_email_id, which the API family declares for it.
type EmailResetResponse struct {
	*session.AuthResponse
	MemberEmailID string `json:"member_email_id"`
}

type existingResetRequest struct {
	OrganizationID         string `json:"organization_id"`
	EmailAddress           string `json:"email_address"`
	ExistingPassword       string `json:"existing_password"`
	NewPassword            string `json:"new_password"`
	SessionDurationMinutes *int   `json:"session_duration_minutes"`
	session.ClaimsField
	httpapi.RequestLocale
}

// ResetExisting handles POST b2b/passwords/existing_password/reset.
func (h Handlers) ResetExisting(r *http.Request) (any, error) {
	var req existingResetRequest
	if err := httpapi.Decode(r, &req); err != nil {
		return nil, err
	}
	claims, err := req.Claims(r)
	if err != nil {
		return nil, err
	}
	// B2BPasswordsExistingPasswordResetResponse has no organization_id.
	return session.Declaring(session.DeclaresIntermediate | session.DeclaresPrimaryRequired)(h.Service.ResetExisting(req.In(r.Context()),
		ExistingResetParams{Project: project.CallerFrom(r.Context()).Project, ClientIP: httpapi.ClientIP(r),
			OrganizationID: req.OrganizationID, Email: req.EmailAddress, ExistingPassword: req.ExistingPassword,
			NewPassword: req.NewPassword, DurationMinutes: req.SessionDurationMinutes, CustomClaims: claims}))
}

type sessionResetRequest struct {
	OrganizationID         string `json:"organization_id"`
	Password               string `json:"password"`
	SessionToken           string `json:"session_token"`
	SessionJWT             string `json:"session_jwt"`
	SessionDurationMinutes *int   `json:"session_duration_minutes"`
	httpapi.RequestLocale
}

// SDKResetBySession handles SDK POST b2b/passwords/session/reset: the
// session is the Basic-auth password.
func (h Handlers) SDKResetBySession(r *http.Request) (any, error) {
	var req sessionResetRequest
	if err := httpapi.Decode(r, &req); err != nil {
		return nil, err
	}
	c := project.CallerFrom(r.Context())
	if c.SessionToken == "" {
		return nil, apierr.New(apierr.UserUnauthenticated)
	}
	res, err := h.Service.ResetBySession(req.In(r.Context()), SessionResetParams{Project: c.Project, ClientIP: httpapi.ClientIP(r),
		Session: session.Credential{Token: c.SessionToken}, Password: req.Password, DurationMinutes: req.SessionDurationMinutes})
	if err != nil {
		return nil, err
	}
	// B2BPasswordResetBySessionResponse has no intermediate fields.
	return session.Completed{AuthResponse: res}, nil
}

// BackendResetBySession handles POST /v1/b2b/passwords/session/reset.
func (h Handlers) BackendResetBySession(r *http.Request) (any, error) {
	var req sessionResetRequest
	if err := httpapi.Decode(r, &req); err != nil {
		return nil, err
	}
	if err := httpapi.Required("organization_id", req.OrganizationID); err != nil {
		return nil, err
	}
	// A token and a JWT both are refused where the session is checked
	// (session.Service.Authenticate: too_many_session_arguments).
	// B2BPasswordsSessionResetResponse declares the intermediate fields but
	// neither organization_id nor primary_required.
	return session.Declaring(session.DeclaresIntermediate)(h.Service.ResetBySession(req.In(r.Context()),
		SessionResetParams{Project: project.CallerFrom(r.Context()).Project, ClientIP: httpapi.ClientIP(r),
			Session: session.Credential{Token: req.SessionToken, JWT: req.SessionJWT}, OrganizationID: req.OrganizationID,
			Password: req.Password, DurationMinutes: req.SessionDurationMinutes}))
}

type migrateRequest struct {
	EmailAddress      string               `json:"email_address"`
	Hash              string               `json:"hash"`
	HashType          string               `json:"hash_type"`
	OrganizationID    string               `json:"organization_id"`
	Argon2Config      *pwhash.Argon2Config `json:"argon_2_config"`
	ScryptConfig      *pwhash.ScryptConfig `json:"scrypt_config"`
	PBKDF2Config      *pwhash.PBKDF2Config `json:"pbkdf_2_config"`
	MD5Config         *pwhash.SaltConfig   `json:"md_5_config"`
	SHA1Config        *pwhash.SaltConfig   `json:"sha_1_config"`
	SHA512Config      *pwhash.SaltConfig   `json:"sha_512_config"`
	Name              string               `json:"name"`
	TrustedMetadata   map[string]any       `json:"trusted_metadata"`
	UntrustedMetadata map[string]any       `json:"untrusted_metadata"`
	// The member fields of B2BPasswordsMigrateRequest.
	Roles                    *[]string `json:"roles"`
	PreserveExistingSessions bool      `json:"preserve_existing_sessions"`
	MFAPhoneNumber           string    `json:"mfa_phone_number"`
	SetPhoneNumberVerified   bool      `json:"set_phone_number_verified"`
	ExternalID               string    `json:"external_id"`
}

// MigrateResponse answers migrate.
type MigrateResponse struct {
	httpapi.Common
	MemberID      string                     `json:"member_id"`
	MemberCreated bool                       `json:"member_created"`
	Member        *organization.Member       `json:"member"`
	Organization  *organization.Organization `json:"organization"`
}

// Migrate handles POST /v1/b2b/passwords/migrate (backend only).
func (h Handlers) Migrate(r *http.Request) (any, error) {
	var req migrateRequest
	if err := httpapi.Decode(r, &req); err != nil {
		return nil, err
	}
	res, err := h.Service.Migrate(r.Context(), MigrateParams{Project: project.CallerFrom(r.Context()).Project,
		OrganizationID: req.OrganizationID, Email: req.EmailAddress, Name: req.Name, TrustedMetadata: req.TrustedMetadata,
		UntrustedMetadata: req.UntrustedMetadata, Hash: pwhash.Import{Hash: req.Hash, HashType: req.HashType,
			Argon2: req.Argon2Config, Scrypt: req.ScryptConfig, PBKDF2: req.PBKDF2Config, MD5: req.MD5Config,
			SHA1: req.SHA1Config, SHA512: req.SHA512Config},
		Roles: req.Roles, PreserveExistingSessions: req.PreserveExistingSessions, ExternalID: req.ExternalID,
		MFAPhoneNumber: req.MFAPhoneNumber, PhoneVerified: req.SetPhoneNumberVerified})
	if err != nil {
		return nil, err
	}
	return &MigrateResponse{MemberID: res.Member.MemberID, MemberCreated: res.MemberCreated, Member: res.Member,
		Organization: res.Organization}, nil
}

type requireResetRequest struct {
	EmailAddress   string `json:"email_address"`
	OrganizationID string `json:"organization_id"`
	MemberID       string `json:"member_id"`
}

// RequireResetResponse answers require_reset; member fields are filled when
// the request named an organization or member.
type RequireResetResponse struct {
	httpapi.Common
	MemberID     string                     `json:"member_id"`
	Member       *organization.Member       `json:"member"`
	Organization *organization.Organization `json:"organization"`
}

// RequireReset handles POST /v1/b2b/passwords/email/require_reset.
func (h Handlers) RequireReset(r *http.Request) (any, error) {
	var req requireResetRequest
	if err := httpapi.Decode(r, &req); err != nil {
		return nil, err
	}
	params := RequireResetParams{Project: project.CallerFrom(r.Context()).Project,
		Email: req.EmailAddress, OrganizationID: req.OrganizationID, MemberID: req.MemberID}
	if _, acting := organization.MemberSessionOf(r); acting {
		// Acting for a member: forcing a reset withdraws the password as
		// deleting it does, and is authorized the same way (mayWithdraw).
		if err := httpapi.Required("organization_id", req.OrganizationID); err != nil {
			return nil, err
		}
		c, err := organization.BackendCaller(r, h.Service.d.Orgs, h.Sessions, req.OrganizationID)
		if err != nil {
			return nil, err
		}
		params.Caller = c
	}
	res, err := h.Service.RequireReset(r.Context(), params)
	if err != nil {
		return nil, err
	}
	out := &RequireResetResponse{Member: res.Member, Organization: res.Organization}
	if res.Member != nil {
		out.MemberID = res.Member.MemberID
	}
	return out, nil
}
