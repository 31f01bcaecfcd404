// Package organization owns organizations and their members: storage, the
// wire shapes of api-reference section 3.0, slug and settings rules, the
// email just-in-time and invite policies that decide whether a stranger may
// join, search with the API family's query operators, the member lifecycle
// (pending, invited, active, deleted), and the routes of both faces that
// manage them, the SDK ones acting for the logged-in member.
package organization

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/latchkey/latchkey/internal/apierr"
	"github.com/latchkey/latchkey/internal/emailaddr"
)

// Email JIT provisioning and auth-method policy values.
const (
	AllAllowed = "ALL_ALLOWED"
	Restricted = "RESTRICTED"
	NotAllowed = "NOT_ALLOWED"
)

// MFA method names used in allowed_mfa_methods (see mfa.go).
var MFAMethods = []string{MFAMethodSMS, MFAMethodTOTP}

// OAuthTenantProviders are the providers whose tenants (workspaces,
// accounts, organizations) allowed_oauth_tenants may name.
var OAuthTenantProviders = []string{"google", "microsoft", "slack", "hubspot", "github"}

// Auth method names used in allowed_auth_methods.
var AuthMethods = []string{"sso", "magic_link", "password", "google_oauth", "microsoft_oauth",
	"hubspot_oauth", "slack_oauth", "github_oauth", "email_otp"}

// SSOActiveConnection is an SSO connection summary (filled by the SSO issue).
type SSOActiveConnection struct {
	ConnectionID     string `json:"connection_id"`
	DisplayName      string `json:"display_name"`
	IdentityProvider string `json:"identity_provider"`
}

// SCIMConnection is the organization's active SCIM connection summary as
// the backend face answers it (the Node client's ActiveSCIMConnection,
// which requires bearer_token_last_four).
type SCIMConnection struct {
	ConnectionID         string `json:"connection_id"`
	DisplayName          string `json:"display_name"`
	BearerTokenLastFour  string `json:"bearer_token_last_four"`
	BearerTokenExpiresAt string `json:"bearer_token_expires_at,omitempty"`
}

// SDKSCIMConnection is the summary on the SDK face, which declares only
// the connection's id and name: the browser gets nothing of its token.
type SDKSCIMConnection struct {
	ConnectionID string `json:"connection_id"`
	DisplayName  string `json:"display_name"`
}

// RoleAssignment grants RoleID to members whose email is in Domain.
type RoleAssignment struct {
	RoleID string `json:"role_id"`
	Domain string `json:"domain"`
}

// Permission lets a role perform Actions on a resource ("*" for all).
type Permission struct {
	ResourceID string   `json:"resource_id"`
	Actions    []string `json:"actions"`
}

// CustomRole is an RBAC role defined by one organization.
type CustomRole struct {
	RoleID      string       `json:"role_id"`
	Description string       `json:"description"`
	Permissions []Permission `json:"permissions"`
}

// Organization is the wire shape of an organization (api-reference 3.0).
// Every field the Node client (stytch 14.2.0) declares required is present,
// even those whose features do not exist yet (SSO connections, SCIM): typed
// client code reads them unguarded.
type Organization struct {
	OrganizationID                       string                `json:"organization_id"`
	OrganizationName                     string                `json:"organization_name"`
	OrganizationSlug                     string                `json:"organization_slug"`
	OrganizationExternalID               string                `json:"organization_external_id,omitempty"`
	OrganizationLogoURL                  string                `json:"organization_logo_url"`
	TrustedMetadata                      map[string]any        `json:"trusted_metadata"`
	CustomRoles                          []CustomRole          `json:"custom_roles"`
	SSODefaultConnectionID               *string               `json:"sso_default_connection_id"`
	SSOJITProvisioning                   string                `json:"sso_jit_provisioning"`
	SSOJITProvisioningAllowedConnections []string              `json:"sso_jit_provisioning_allowed_connections"`
	SSOActiveConnections                 []SSOActiveConnection `json:"sso_active_connections"`
	SCIMActiveConnection                 *SCIMConnection       `json:"scim_active_connection"`
	EmailAllowedDomains                  []string              `json:"email_allowed_domains"`
	EmailJITProvisioning                 string                `json:"email_jit_provisioning"`
	EmailInvites                         string                `json:"email_invites"`
	OAuthTenantJITProvisioning           string                `json:"oauth_tenant_jit_provisioning"`
	AllowedOAuthTenants                  map[string][]string   `json:"allowed_oauth_tenants"`
	AuthMethods                          string                `json:"auth_methods"`
	AllowedAuthMethods                   []string              `json:"allowed_auth_methods"`
	MFAMethods                           string                `json:"mfa_methods"`
	AllowedMFAMethods                    []string              `json:"allowed_mfa_methods"`
	MFAPolicy                            string                `json:"mfa_policy"`
	RBACEmailImplicitRoleAssignments     []RoleAssignment      `json:"rbac_email_implicit_role_assignments"`
	ClaimedEmailDomains                  []string              `json:"claimed_email_domains"`
	FirstPartyConnectedAppsAllowedType   string                `json:"first_party_connected_apps_allowed_type"`
	AllowedFirstPartyConnectedApps       []string              `json:"allowed_first_party_connected_apps"`
	ThirdPartyConnectedAppsAllowedType   string                `json:"third_party_connected_apps_allowed_type"`
	AllowedThirdPartyConnectedApps       []string              `json:"allowed_third_party_connected_apps"`
	CreatedAt                            time.Time             `json:"created_at"`
	UpdatedAt                            time.Time             `json:"updated_at"`

	projectID string
}

// ProjectID returns the owning project.
func (o *Organization) ProjectID() string { return o.projectID }

// AllowsAuthMethod reports whether the organization's auth policy accepts
// the method (one of AuthMethods).
func (o *Organization) AllowsAuthMethod(method string) bool {
	return o.AuthMethods != Restricted || slices.Contains(o.AllowedAuthMethods, method)
}

// AllowsAuthMethodFor is AllowsAuthMethod for member m (nil: someone not
// yet a member). A break-glass member is exempt from a RESTRICTED list, as
// the API family documents: they are the way back in when the one allowed
// method (typically the organization's SSO) is broken or misconfigured.
func (o *Organization) AllowsAuthMethodFor(m *Member, method string) bool {
	return (m != nil && m.IsBreakglass) || o.AllowsAuthMethod(method)
}

// CheckEmailJIT decides whether a non-member with this (normalised) email
// may join by email. The two refusals are distinct types so the widget can
// show the spec's text for both.
func (o *Organization) CheckEmailJIT(email string) error {
	switch o.EmailJITProvisioning {
	case AllAllowed:
		return nil
	case Restricted:
		if slices.Contains(o.EmailAllowedDomains, emailaddr.Domain(email)) {
			return nil
		}
		return apierr.New(apierr.InvalidEmailForJITProvisioning)
	default:
		return apierr.New(apierr.EmailJITProvisioningNotAllowed)
	}
}

// CheckEmailInvite decides whether this (normalised) email may be invited
// by email: email_invites NOT_ALLOWED refuses everyone, RESTRICTED admits
// only addresses in email_allowed_domains.
func (o *Organization) CheckEmailInvite(email string) error {
	switch o.EmailInvites {
	case AllAllowed:
		return nil
	case Restricted:
		if slices.Contains(o.EmailAllowedDomains, emailaddr.Domain(email)) {
			return nil
		}
		return apierr.New(apierr.InvalidEmailForInvites)
	default:
		return apierr.New(apierr.EmailInvitesNotAllowed)
	}
}

// validSlug is ^[a-z0-9._~-]{2,128}$ written out: compiled, that bounded
// repetition is a 118 KB regexp program built at every start.
func validSlug(s string) bool {
	if len(s) < 2 || len(s) > 128 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '.' || c == '_' || c == '~' || c == '-') {
			return false
		}
	}
	return true
}

// ValidateSlug checks the slug rule: 2-128 of lowercase letters, digits and
// "-._~" (URL-safe without escaping, so slugs fit in slug_pattern URLs).
func ValidateSlug(slug string) error {
	if !validSlug(slug) {
		return apierr.New(apierr.InvalidOrganizationSlug)
	}
	return nil
}

// SlugFromName derives a slug from a display name.
func SlugFromName(name string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(name) {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9':
			b.WriteRune(r)
			dash = false
		case !dash && b.Len() > 0:
			b.WriteByte('-')
			dash = true
		}
	}
	return strings.Trim(b.String(), "-")
}

func validatePolicy(field, v string, allowed ...string) error {
	if !slices.Contains(allowed, v) {
		return apierr.Invalid(field, fmt.Sprintf("%s must be one of %s.", field, strings.Join(allowed, ", ")))
	}
	return nil
}

// domainRule is how a setting refuses an email domain: the field named in
// the error, and its types for not a domain and for a shared provider's.
type domainRule struct {
	field              string
	invalid, tooCommon apierr.Type
}

var (
	allowedDomainRule = domainRule{"email_allowed_domains", apierr.InvalidAllowedDomain, apierr.AllowedDomainTooCommon}
	rbacDomainRule    = domainRule{"rbac_email_implicit_role_assignments", apierr.InvalidRBACDomain, apierr.RBACDomainTooCommon}
)

// normalizeDomains lower-cases and de-duplicates a list of email domains
// (a repeated one is merged, not refused). A shared mail provider's domain
// (emailaddr.IsCommonDomain) is refused: allowing gmail.com would let
// anyone in, and claiming it would keep every gmail user of the project
// out of every other organization. Only lists a request sends are checked, so an
// organization stored with such a domain before this rule keeps it until
// the list is next written.
func normalizeDomains(rule domainRule, in []string) ([]string, error) {
	out := make([]string, 0, len(in))
	seen := make(map[string]bool, len(in))
	for _, d := range in {
		d = strings.ToLower(strings.TrimSpace(d))
		details := map[string]any{"field": rule.field, "domain": d}
		if _, err := emailaddr.Normalize("x@" + d); err != nil {
			return nil, apierr.New(rule.invalid).WithMessage(fmt.Sprintf("%q is not a valid email domain.", d)).WithDetails(details)
		}
		if emailaddr.IsCommonDomain(d) {
			return nil, apierr.New(rule.tooCommon).WithDetails(details)
		}
		if !seen[d] {
			seen[d] = true
			out = append(out, d)
		}
	}
	return out, nil
}

func mustJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(fmt.Errorf("organization: marshal: %w", err))
	}
	return string(b)
}
