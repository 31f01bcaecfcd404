// Package session owns member sessions: opaque session tokens (stored
// hashed), RS256 session JWTs with the claims of api-reference section 5.3,
// the JWKS, and authenticate/revoke on both API faces. Complete is the one
// place every primary authentication method turns a verified member into a
// session, so later policy (MFA, primary_required) has a single seam.
package session

import (
	"time"

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
	SAMLSSOFactor       *SSOFactor         `json:"saml_sso_factor,omitempty"`
	OIDCSSOFactor       *SSOFactor         `json:"oidc_sso_factor,omitempty"`
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
}

// Duration limits for session_duration_minutes.
const (
	MinDurationMinutes = 5
	MaxDurationMinutes = 527040 // 366 days
	JWTLifetime        = 5 * time.Minute
)
