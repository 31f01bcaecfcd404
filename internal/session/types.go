// Package session owns member sessions: opaque session tokens (stored
// hashed), RS256 session JWTs with the claims of api-reference section 5.3,
// the JWKS, and authenticate/revoke on both API faces. Complete is the one
// place every primary authentication method turns a verified member into a
// session, so later policy (MFA, primary_required) has a single seam.
package session

import (
	"slices"
	"strings"
	"time"

	"github.com/latchkey/latchkey/internal/emailaddr"
	"github.com/latchkey/latchkey/internal/httpapi"
	"github.com/latchkey/latchkey/internal/organization"
)

// EmailFactor identifies the email used by an email factor.
type EmailFactor struct {
	EmailID      string `json:"email_id"`
	EmailAddress string `json:"email_address"`
}

// PhoneNumberFactor identifies the phone of an SMS factor.
type PhoneNumberFactor struct {
	PhoneID     string `json:"phone_id"`
	PhoneNumber string `json:"phone_number"`
}

// OAuthFactor identifies the provider account of an OAuth factor
// ({provider}_oauth_factor): id is the member's OAuth registration.
type OAuthFactor struct {
	ID                string   `json:"id"`
	EmailID           string   `json:"email_id,omitempty"`
	ProviderSubject   string   `json:"provider_subject"`
	ProviderTenantID  string   `json:"provider_tenant_id,omitempty"`
	ProviderTenantIDs []string `json:"provider_tenant_ids,omitempty"`
}

// SSOFactor identifies the SSO connection (provider_id) and the member's
// identity there (external_id) behind an SSO factor; id is the member's
// registration at that connection.
type SSOFactor struct {
	ID         string `json:"id"`
	ProviderID string `json:"provider_id"`
	ExternalID string `json:"external_id"`
}

// Factor is one authentication factor of a session.
type Factor struct {
	DeliveryMethod      string             `json:"delivery_method"`
	Type                string             `json:"type"`
	LastAuthenticatedAt time.Time          `json:"last_authenticated_at"`
	SequenceOrder       string             `json:"sequence_order,omitempty"`
	EmailFactor         *EmailFactor       `json:"email_factor,omitempty"`
	PhoneNumberFactor   *PhoneNumberFactor `json:"phone_number_factor,omitempty"`
	// OAuth factors (type "oauth", delivery_method "oauth_{provider}"):
	// exactly one is set, named after the provider.
	GoogleOAuthFactor    *OAuthFactor `json:"google_oauth_factor,omitempty"`
	MicrosoftOAuthFactor *OAuthFactor `json:"microsoft_oauth_factor,omitempty"`
	HubspotOAuthFactor   *OAuthFactor `json:"hubspot_oauth_factor,omitempty"`
	SlackOAuthFactor     *OAuthFactor `json:"slack_oauth_factor,omitempty"`
	GithubOAuthFactor    *OAuthFactor `json:"github_oauth_factor,omitempty"`
	// SSO factors (type "sso", delivery_method "sso_saml" or "sso_oidc").
	SAMLSSOFactor *SSOFactor `json:"saml_sso_factor,omitempty"`
	OIDCSSOFactor *SSOFactor `json:"oidc_sso_factor,omitempty"`
	// A trusted auth token (type "trusted_auth_token", delivery_method
	// "trusted_token_exchange"; package trustedauth).
	TrustedAuthTokenFactor *TrustedAuthTokenFactor `json:"trusted_auth_token_factor,omitempty"`
	// A connected app's access token exchanged back into a session
	// (type "oauth", delivery_method "oauth_access_token_exchange").
	OAuthAccessTokenExchangeFactor *OAuthAccessTokenExchangeFactor `json:"oauth_access_token_exchange_factor,omitempty"`
	// An operator acting as the member (type "impersonated",
	// delivery_method "impersonation"; package impersonation).
	ImpersonatedFactor *ImpersonatedFactor `json:"impersonated_factor,omitempty"`

	// verifiedEmail is provenance, not part of the wire object: the
	// address an OAuth login's provider verified for the account ("" when
	// it verified none). It is unexported so that no encoding of the wire
	// shape (answers, the JWT claim, authentication_factors) can carry it;
	// it is stored beside the factors (see encodeFactors) and set only by
	// WithVerifiedEmail.
	verifiedEmail string
}

// Factor types of the code logins, as the API family's
// AuthenticationFactor names them: an email code is email_otp (delivery
// email), an SMS code otp (delivery sms only).
const (
	EmailOTPType = "email_otp"
	SMSOTPType   = "otp"
)

// normalized is f as this server names it now. Email codes were once
// written as type otp with delivery email; sessions and ISTs issued then
// still hold such rows, and read as email_otp here. Every factor read
// from storage (decodeFactors) or starting a session (Complete) passes
// through it, so no reader of factor types checks both spellings.
func (f Factor) normalized() Factor {
	if f.Type == SMSOTPType && f.DeliveryMethod == "email" {
		f.Type = EmailOTPType
	}
	return f
}

// WithVerifiedEmail returns f recording that its OAuth provider verified
// email as the account's address at this login. The OAuth module calls it
// when the provider said so; Carries decides what that is worth.
func (f Factor) WithVerifiedEmail(email string) Factor {
	f.verifiedEmail = email
	return f
}

// OAuthAccessTokenExchangeFactor names the connected app whose access
// token was exchanged.
type OAuthAccessTokenExchangeFactor struct {
	ClientID string `json:"client_id"`
}

// TrustedAuthTokenFactor names the attested token by its token id claim.
type TrustedAuthTokenFactor struct {
	TokenID string `json:"token_id"`
}

// MemberSession is the wire shape of a session.
type MemberSession struct {
	MemberSessionID       string         `json:"member_session_id"`
	MemberID              string         `json:"member_id"`
	OrganizationID        string         `json:"organization_id"`
	StartedAt             time.Time      `json:"started_at"`
	LastAccessedAt        time.Time      `json:"last_accessed_at"`
	ExpiresAt             time.Time      `json:"expires_at"`
	AuthenticationFactors []Factor       `json:"authentication_factors"`
	CustomClaims          map[string]any `json:"custom_claims"`
	Roles                 []string       `json:"roles"`
	OrganizationSlug      string         `json:"organization_slug"`
	// IPAddress and UserAgent are the client that created the session.
	// The API family's member_session object has no place for them; they
	// are reported in the session JWT's attributes claim.
	IPAddress string `json:"-"`
	UserAgent string `json:"-"`
	// claimsText is CustomClaims as stored (encodeClaims): what a cached
	// JWT is compared by, since a string compares without walking a map.
	claimsText string
	// lineage is the member_session_id of the login this session descends
	// from (Lineage). Unexported, like claimsText, so that no encoding of
	// the wire shape (either face's member_session, the JWT) can carry it.
	lineage string
}

// Lineage names the provider session this session belongs to: the
// member_session_id of the login it descends from. A fresh login starts
// a lineage of its own id; a step-up (CompleteParams.From) ends the held
// session and starts a new one in the held one's lineage, because to its
// holder it is the same session with one more factor. The IdP derives an
// ID token's sid from it, so the sid stays stable across step-ups (OIDC
// Front-Channel Logout 1.0 3: the sid names the provider's session).
// Moving into another organization (sessions/exchange) is another
// session, with a lineage of its own.
func (ms *MemberSession) Lineage() string {
	if ms.lineage == "" { // a MemberSession not read from the database
		return ms.MemberSessionID
	}
	return ms.lineage
}

// SessionResponse is the API family's B2BAuthenticateResponse.
type SessionResponse struct {
	httpapi.Common
	MemberID      string                     `json:"member_id"`
	MemberSession *MemberSession             `json:"member_session"`
	SessionToken  string                     `json:"session_token"`
	SessionJWT    string                     `json:"session_jwt"`
	Member        *organization.Member       `json:"member"`
	Organization  *organization.Organization `json:"organization"`
	// key names the cached entries the answer was built from, when it
	// was built from cache alone (see answers).
	key *answerKey
}

// AuthResponse is B2BAuthenticateResponseWithMFA: the answer of every
// primary authenticate call. When a session is issued, the intermediate
// fields are empty and member_authenticated is true.
type AuthResponse struct {
	SessionResponse
	OrganizationID           string `json:"organization_id"` // also when only an IST is issued
	IntermediateSessionToken string `json:"intermediate_session_token"`
	MemberAuthenticated      bool   `json:"member_authenticated"`
	MFARequired              any    `json:"mfa_required"`
	PrimaryRequired          any    `json:"primary_required"`
	MethodID                 string `json:"method_id,omitempty"`

	sessionsReset bool // CompleteParams.SessionsEnded
}

// SessionsReset reports whether the login ended the member's other
// sessions and logins in progress (CompleteParams.SessionsEnded): the
// methods whose answer has reset_sessions say so there.
func (r *AuthResponse) SessionsReset() bool { return r.sessionsReset }

// Every login answer names its subject for the audit log, wrapped or not.
var (
	_ httpapi.Subjecter = (*AuthResponse)(nil)
	_ httpapi.Subjecter = WithMethodID{}
)

// AuditSubject implements httpapi.Subjecter with the fields the answer's
// JSON shows: the member and organization ids, falling back to the nested
// member and organization, and whether only an IST was issued.
func (r *AuthResponse) AuditSubject() httpapi.Subject {
	s := httpapi.Subject{OrganizationID: r.OrganizationID, MemberID: r.MemberID,
		MFAPending: r.IntermediateSessionToken != "" && r.SessionToken == ""}
	if s.MemberID == "" && r.Member != nil {
		s.MemberID = r.Member.MemberID
	}
	if s.OrganizationID == "" && r.Organization != nil {
		s.OrganizationID = r.Organization.OrganizationID
	}
	if s.OrganizationID == "" && r.Member != nil {
		s.OrganizationID = r.Member.OrganizationID
	}
	return s
}

// Duration limits for session_duration_minutes.
const (
	MinDurationMinutes = 5
	MaxDurationMinutes = 527040 // 366 days
	JWTLifetime        = 5 * time.Minute
)

// Factor names of a session migrated from another provider
// (b2b/sessions/migrate, package trustedauth).
const (
	MigratedType           = "imported"
	MigratedDeliveryMethod = "imported_oidc"
)

// authenticatesMember reports whether f is the member authenticating at
// the time it shows (LastAuthenticatedAt). It is the one rule for how
// recently a session authenticated: step-up (FactorTimes) and the IdP's
// auth_time (AuthenticatedAt) both follow it. Three kinds of factor are
// not, and are left out:
//   - an impersonated factor: an operator's visit is the member's
//     session, so it never counts as a recent factor for the changes
//     step-up guards (an email update, MFA or recovery codes), which
//     would otherwise let the visit take the account over for good;
//   - a connected app's access token exchanged for a session
//     (sessions/exchange_access_token): the token may come from a refresh
//     token weeks old, so the exchange's time says nothing about when the
//     member last authenticated, and counting it would let whoever holds
//     the app's refresh token make the same changes;
//   - a session migrated from another provider (sessions/migrate): a
//     token the old provider still accepts proves a session there, of
//     any age, not that the member just authenticated, and counting it
//     would let whoever holds such a token make the same changes.
func (f Factor) authenticatesMember() bool {
	return !f.Impersonated() && f.OAuthAccessTokenExchangeFactor == nil && f.Type != MigratedType
}

// FactorTimes lists when the member last authenticated with each of the
// session's factors that is an authentication by the member
// (authenticatesMember), for step-up checks (package stepup).
func (ms *MemberSession) FactorTimes() []time.Time {
	out := make([]time.Time, 0, len(ms.AuthenticationFactors))
	for _, f := range ms.AuthenticationFactors {
		if f.authenticatesMember() {
			out = append(out, f.LastAuthenticatedAt)
		}
	}
	return out
}

// AuthenticatedAt is when the member last authenticated in the session:
// the latest of FactorTimes (the IdP's auth_time, OIDC Core 2). ok is
// false when no factor is an authentication by the member, as in a
// session only impersonated, exchanged from an access token or migrated:
// its start says nothing about when the member last authenticated.
func (ms *MemberSession) AuthenticatedAt() (t time.Time, ok bool) {
	for _, ft := range ms.FactorTimes() {
		if !ok || ft.After(t) {
			t, ok = ft, true
		}
	}
	return t, ok
}

// ProvesInbox reports whether f shows control of email's inbox: a link or
// code delivered to that address. Only such a factor, or an OAuth login
// whose provider verified the address (see Carries), says anything about
// the address to every organization. The others speak for one
// organization at most: an SSO login is whatever that organization's
// identity provider asserts, and an OAuth login may come from a tenant an
// organization admits with an address the provider never verified.
func (f Factor) ProvesInbox(email string) bool {
	return f.DeliveryMethod == "email" && (f.Type == "magic_link" || f.Type == EmailOTPType) &&
		f.EmailFactor != nil && emailaddr.Equal(f.EmailFactor.EmailAddress, email)
}

// providerVerified reports whether f is an OAuth login whose provider
// verified, at that login, that the account's address is email. A
// registered provider account may log in to its member with an address
// the provider did not verify, or with another one; such a login proves
// nothing about email. Rows stored before the provenance was recorded
// have none, so they prove nothing either.
func (f Factor) providerVerified(email string) bool {
	_, _, ok := f.OAuth()
	return ok && f.verifiedEmail != "" && emailaddr.Equal(f.verifiedEmail, email)
}

// Carries reports whether f moves with a session of the member whose
// address is email into another organization of that address
// (sessions/exchange). It is the one place that decides; what carries is
// a primary factor that proved the address itself, as every organization
// can rely on:
//   - an email link or code for email (ProvesInbox);
//   - an OAuth login whose provider verified email (the discovery exchange
//     trusts the same logins). How the member was admitted (by tenant JIT,
//     say) no longer matters once the provider vouched for the address.
//
// The target organization's allowed_auth_methods still apply to what
// carries (session.Complete): a Google login satisfies only an
// organization that accepts google_oauth.
//
// Never carried: SSO (an organization's admin runs the identity provider,
// which may assert any address) and a password, although it serves the
// address in every organization. A password can be withdrawn without
// ending the sessions made with it (a forced reset, require_reset from the
// backend or after a breach; its deletion), and a direct login is then
// refused, while the exchange cannot check it again: a carried password
// factor would keep minting sessions from a password that no longer logs
// in. The member logs in with it in the target organization instead.
func (f Factor) Carries(email string) bool {
	return f.SequenceOrder == Primary && (f.ProvesInbox(email) || f.providerVerified(email))
}

// AnyCarries reports whether one of factors carries (Carries).
func AnyCarries(factors []Factor, email string) bool {
	return slices.ContainsFunc(factors, func(f Factor) bool { return f.Carries(email) })
}

// ProvesAddress is ProvesInbox, or a login with the password of email: a
// password belongs to the address in every organization, and is set only
// through the inbox, with the current password, or by the customer's
// backend. An OAuth login does not count here even when its provider
// verified the address: this is what lets a session set the address's
// password (passwords/session/reset), which would then open every
// organization that accepts passwords, including those that do not accept
// that provider.
func (f Factor) ProvesAddress(email string) bool {
	return f.ProvesInbox(email) ||
		(f.Type == "password" && f.EmailFactor != nil && emailaddr.Equal(f.EmailFactor.EmailAddress, email))
}

// AnyProvesToOthers reports whether one of factors is a proof of email
// that other organizations can rely on (organization.MarkEmailVerified
// rather than MarkEmailAsserted): an email link or code, a password
// (ProvesAddress), or an OAuth login whose provider verified it (Carries),
// anything but an organization's own SSO identity provider's assertion.
func AnyProvesToOthers(factors []Factor, email string) bool {
	return slices.ContainsFunc(factors, func(f Factor) bool { return f.ProvesAddress(email) || f.Carries(email) })
}

// VerifiesAddress reports whether f proved control of email as it
// happened, what the API family calls a method that provides real-time
// email verification: a primary factor that carries (an email link or code
// for email, an OAuth login whose provider verified it), or a password
// just set through a reset link emailed to email (delivery method
// "email": the discovery reset). A returning password (delivery method
// "knowledge") proves the address in the organizations where it is
// already a member's (ProvesAddress), but not as it happened: creating an
// organization with it, or joining one by email JIT, needs another step
// that does (discovery's Create and Exchange answer primary_required).
func (f Factor) VerifiesAddress(email string) bool {
	return f.Carries(email) || (f.SequenceOrder == Primary && f.DeliveryMethod == "email" && f.ProvesAddress(email))
}

// AnyVerifiesAddress reports whether one of factors verifies email
// (VerifiesAddress).
func AnyVerifiesAddress(factors []Factor, email string) bool {
	return slices.ContainsFunc(factors, func(f Factor) bool { return f.VerifiesAddress(email) })
}

// AnyProvesAddress reports whether one of factors proves email
// (ProvesAddress).
func AnyProvesAddress(factors []Factor, email string) bool {
	for _, f := range factors {
		if f.ProvesAddress(email) {
			return true
		}
	}
	return false
}

// OAuth returns the provider and the provider account of an OAuth factor
// (ok false for other factors).
func (f Factor) OAuth() (provider string, of *OAuthFactor, ok bool) {
	if f.Type != "oauth" {
		return "", nil, false
	}
	provider = strings.TrimPrefix(f.DeliveryMethod, "oauth_")
	for _, c := range []*OAuthFactor{f.GoogleOAuthFactor, f.MicrosoftOAuthFactor, f.HubspotOAuthFactor, f.SlackOAuthFactor, f.GithubOAuthFactor} {
		if c != nil {
			return provider, c, true
		}
	}
	return "", nil, false
}

// TenantIDs lists the provider tenants an OAuth factor carries.
func (o *OAuthFactor) TenantIDs() []string {
	if len(o.ProviderTenantIDs) > 0 {
		return o.ProviderTenantIDs
	}
	if o.ProviderTenantID != "" {
		return []string{o.ProviderTenantID}
	}
	return nil
}
