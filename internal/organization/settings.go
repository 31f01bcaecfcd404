package organization

import (
	"fmt"
	"net/url"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/latchkey/latchkey/internal/apierr"
	"github.com/latchkey/latchkey/internal/displaytext"
	"github.com/latchkey/latchkey/internal/metadata"
	"github.com/latchkey/latchkey/internal/oauth/providers"
)

// Settings are the writable fields of an organization; nil means "leave as
// is". The same struct decodes create and update requests. Lists replace
// the stored list entirely, as the API family does.
type Settings struct {
	Name                                 *string              `json:"organization_name"`
	Slug                                 *string              `json:"organization_slug"`
	ExternalID                           *string              `json:"organization_external_id"`
	LogoURL                              *string              `json:"organization_logo_url"`
	TrustedMetadata                      *map[string]any      `json:"trusted_metadata"`
	CustomRoles                          *[]CustomRole        `json:"-"` // set through the RBAC organization policy only
	ClaimedEmailDomains                  *[]string            `json:"-"` // set by the backend face's create and update only (backendSettings)
	SSODefaultConnectionID               *string              `json:"sso_default_connection_id"`
	SSOJITProvisioning                   *string              `json:"sso_jit_provisioning"`
	SSOJITProvisioningAllowedConnections *[]string            `json:"sso_jit_provisioning_allowed_connections"`
	EmailJITProvisioning                 *string              `json:"email_jit_provisioning"`
	EmailAllowedDomains                  *[]string            `json:"email_allowed_domains"`
	EmailInvites                         *string              `json:"email_invites"`
	OAuthTenantJITProvisioning           *string              `json:"oauth_tenant_jit_provisioning"`
	AllowedOAuthTenants                  *map[string][]string `json:"allowed_oauth_tenants"`
	AuthMethods                          *string              `json:"auth_methods"`
	AllowedAuthMethods                   *[]string            `json:"allowed_auth_methods"`
	MFAPolicy                            *string              `json:"mfa_policy"`
	MFAMethods                           *string              `json:"mfa_methods"`
	AllowedMFAMethods                    *[]string            `json:"allowed_mfa_methods"`
	RBACEmailImplicitRoleAssignments     *[]RoleAssignment    `json:"rbac_email_implicit_role_assignments"`
	FirstPartyConnectedAppsAllowedType   *string              `json:"first_party_connected_apps_allowed_type"`
	AllowedFirstPartyConnectedApps       *[]string            `json:"allowed_first_party_connected_apps"`
	ThirdPartyConnectedAppsAllowedType   *string              `json:"third_party_connected_apps_allowed_type"`
	AllowedThirdPartyConnectedApps       *[]string            `json:"allowed_third_party_connected_apps"`
}

// ForMembers drops the fields an organization's own members may not set
// from the browser: trusted_metadata is trusted precisely because only the
// customer's backend writes it, and the external id is the backend's
// bookkeeping. (Custom roles are never decoded from a request: the RBAC
// organization policy route validates and sets them.)
func (s Settings) ForMembers() Settings {
	s.TrustedMetadata, s.ExternalID = nil, nil
	return s
}

// Setting list caps. The vendor states none; these are far above what an
// organization configures (a few domains, connections, apps), and they
// bound what every session answer carrying the organization repeats:
// 60,000 connected app ids made that answer a megabyte. Each list is
// refused whole, naming its field, before a transaction opens
// (checkSizes); the method lists name values of short enumerations.
const (
	MaxSettingsDomains = 100 // email_allowed_domains, claimed_email_domains, rbac_email_implicit_role_assignments
	MaxSettingsIDs     = 100 // connection and connected-app ids, OAuth tenant ids per provider
	MaxSettingsMethods = 20  // allowed_auth_methods, allowed_mfa_methods
	// MaxRoleAssignments bounds a connection's implicit role assignments
	// (SAML and external connections' connection and group lists, SCIM's
	// group list): each assignment is checked against the policy inside
	// the write transaction, and 15,000 of them held it for seconds.
	MaxRoleAssignments = 200
)

// checkSizes refuses a list over its cap, in time independent of its
// length: Create and Update call it before their transaction opens, so an
// oversized list never holds the writer (SQLite has one), and apply
// again for the callers of CreateIn and UpdateIn.
func (s Settings) checkSizes() error {
	for _, l := range []struct {
		field string
		n     int
		max   int
	}{
		{"email_allowed_domains", lenOf(s.EmailAllowedDomains), MaxSettingsDomains},
		{"claimed_email_domains", lenOf(s.ClaimedEmailDomains), MaxSettingsDomains},
		{"sso_jit_provisioning_allowed_connections", lenOf(s.SSOJITProvisioningAllowedConnections), MaxSettingsIDs},
		{"allowed_first_party_connected_apps", lenOf(s.AllowedFirstPartyConnectedApps), MaxSettingsIDs},
		{"allowed_third_party_connected_apps", lenOf(s.AllowedThirdPartyConnectedApps), MaxSettingsIDs},
		{"allowed_auth_methods", lenOf(s.AllowedAuthMethods), MaxSettingsMethods},
		{"allowed_mfa_methods", lenOf(s.AllowedMFAMethods), MaxSettingsMethods},
	} {
		if l.n > l.max {
			return TooMany(l.field, l.max)
		}
	}
	if s.RBACEmailImplicitRoleAssignments != nil && len(*s.RBACEmailImplicitRoleAssignments) > MaxSettingsDomains {
		return TooMany("rbac_email_implicit_role_assignments", MaxSettingsDomains)
	}
	if s.AllowedOAuthTenants != nil {
		if len(*s.AllowedOAuthTenants) > len(OAuthTenantProviders) {
			return apierr.Invalid("allowed_oauth_tenants", fmt.Sprintf("allowed_oauth_tenants takes only %s.", strings.Join(OAuthTenantProviders, ", ")))
		}
		for _, ids := range *s.AllowedOAuthTenants {
			if len(ids) > MaxSettingsIDs {
				return TooMany("allowed_oauth_tenants", MaxSettingsIDs)
			}
		}
	}
	return nil
}

func lenOf(l *[]string) int {
	if l == nil {
		return 0
	}
	return len(*l)
}

// TooMany is the refusal of a list over its cap, naming its field.
func TooMany(field string, max int) error {
	return apierr.Invalid(field, fmt.Sprintf("%s may list at most %d entries.", field, max))
}

func (s Settings) apply(o *Organization, creating bool) error {
	if err := s.checkSizes(); err != nil {
		return err
	}
	if err := s.applyInfo(o, creating); err != nil {
		return err
	}
	for _, p := range []struct {
		field string
		in    *string
		dst   *string
		ok    []string
	}{
		{"sso_jit_provisioning", s.SSOJITProvisioning, &o.SSOJITProvisioning, []string{AllAllowed, Restricted, NotAllowed}},
		{"email_jit_provisioning", s.EmailJITProvisioning, &o.EmailJITProvisioning, []string{AllAllowed, Restricted, NotAllowed}},
		{"email_invites", s.EmailInvites, &o.EmailInvites, []string{AllAllowed, Restricted, NotAllowed}},
		{"oauth_tenant_jit_provisioning", s.OAuthTenantJITProvisioning, &o.OAuthTenantJITProvisioning, []string{Restricted, NotAllowed}},
		{"auth_methods", s.AuthMethods, &o.AuthMethods, []string{AllAllowed, Restricted}},
		{"mfa_policy", s.MFAPolicy, &o.MFAPolicy, []string{MFAOptional, MFARequiredForAll}},
		{"mfa_methods", s.MFAMethods, &o.MFAMethods, []string{AllAllowed, Restricted}},
		{"first_party_connected_apps_allowed_type", s.FirstPartyConnectedAppsAllowedType, &o.FirstPartyConnectedAppsAllowedType, []string{AllAllowed, Restricted, NotAllowed}},
		{"third_party_connected_apps_allowed_type", s.ThirdPartyConnectedAppsAllowedType, &o.ThirdPartyConnectedAppsAllowedType, []string{AllAllowed, Restricted, NotAllowed}},
	} {
		if p.in == nil {
			continue
		}
		if err := validatePolicy(p.field, *p.in, p.ok...); err != nil {
			return err
		}
		*p.dst = *p.in
	}
	// The API family's create default: email_invites is ALL_ALLOWED (the
	// organization's way to add members) only when the request names no
	// authentication setting; a caller who configures them chooses
	// email_invites too, and leaving it out means NOT_ALLOWED.
	defaulted := creating && s.EmailInvites == nil && s.namesAuthSettings()
	if defaulted {
		o.EmailInvites = NotAllowed
	}
	if err := s.applyLists(o); err != nil {
		return err
	}
	if defaulted && noWayToJoin(o) {
		return apierr.Invalid("email_invites", "sso_jit_provisioning, email_jit_provisioning and email_invites cannot all be NOT_ALLOWED; "+
			"email_invites defaults to NOT_ALLOWED when a create names other authentication settings, so send it explicitly.")
	}
	return checkRules(o)
}

// namesAuthSettings reports whether the request names any of the
// organization authentication settings (the API family's org-auth-settings
// resource: the email_*, sso_* and oauth_tenant_* provisioning settings
// and their lists, and the auth and MFA method settings, mfa_policy
// included). Descriptive fields, metadata, implicit role assignments and
// connected-app settings govern neither authentication nor provisioning.
// A field sent as null is not named (it decodes as absent).
func (s Settings) namesAuthSettings() bool {
	return s.EmailInvites != nil || s.EmailJITProvisioning != nil || s.EmailAllowedDomains != nil ||
		s.SSOJITProvisioning != nil || s.SSOJITProvisioningAllowedConnections != nil || s.SSODefaultConnectionID != nil ||
		s.OAuthTenantJITProvisioning != nil || s.AllowedOAuthTenants != nil ||
		s.AuthMethods != nil || s.AllowedAuthMethods != nil ||
		s.MFAPolicy != nil || s.MFAMethods != nil || s.AllowedMFAMethods != nil
}

// noWayToJoin reports an organization no new member could join: no SSO or
// email JIT provisioning and no email invites.
func noWayToJoin(o *Organization) bool {
	return o.SSOJITProvisioning == NotAllowed && o.EmailJITProvisioning == NotAllowed && o.EmailInvites == NotAllowed
}

// applyInfo sets the descriptive fields: name, slug, ids, logo, metadata.
func (s Settings) applyInfo(o *Organization, creating bool) error {
	// A create needs a name, and a blank one (spaces, or only invisible
	// characters) is none. An update without one keeps the name, so a
	// blank one there is an invalid name instead.
	if creating && (s.Name == nil || displaytext.Blank(*s.Name)) {
		return apierr.New(apierr.OrganizationNameMissing).WithDetails(map[string]any{"field": "organization_name"})
	}
	if s.Name != nil {
		name, err := checkOrgName(*s.Name)
		if err != nil {
			return err
		}
		o.OrganizationName = name
	}
	if s.Slug != nil {
		slug := strings.TrimSpace(*s.Slug)
		if err := ValidateSlug(slug); err != nil {
			return err
		}
		o.OrganizationSlug = slug
	}
	if s.ExternalID != nil {
		id := strings.TrimSpace(*s.ExternalID)
		if err := checkExternalID("organization_external_id", id); err != nil {
			return err
		}
		o.OrganizationExternalID = id // "" clears it
	}
	if s.LogoURL != nil {
		if *s.LogoURL != "" {
			u, err := url.Parse(*s.LogoURL)
			if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
				return apierr.Invalid("organization_logo_url", "organization_logo_url must be an absolute http(s) URL.")
			}
		}
		o.OrganizationLogoURL = *s.LogoURL
	}
	if s.TrustedMetadata != nil {
		var current map[string]any // a creation merges into nothing
		if !creating {
			current = o.TrustedMetadata
		}
		md, err := metadata.Merge("trusted_metadata", current, *s.TrustedMetadata)
		if err != nil {
			return err
		}
		o.TrustedMetadata = md
	}
	if s.SSODefaultConnectionID != nil {
		// "" clears the default; any other id must be one of the
		// organization's connections (checkDefaultConnection).
		o.SSODefaultConnectionID = nil
		if id := strings.TrimSpace(*s.SSODefaultConnectionID); id != "" {
			o.SSODefaultConnectionID = &id
		}
	}
	return nil
}

// MaxOrgNameLength bounds an organization's name, in characters.
const MaxOrgNameLength = 128

// checkOrgName trims an organization name and refuses a blank one, one
// over MaxOrgNameLength characters, and one holding control or
// bidirectional formatting characters (displaytext): the name is in the
// subject of every login email, and anyone with a proven email can create
// and name an organization through discovery.
func checkOrgName(name string) (string, error) {
	name = strings.TrimSpace(name)
	if displaytext.Blank(name) || utf8.RuneCountInString(name) > MaxOrgNameLength || strings.ContainsFunc(name, displaytext.Forbidden) {
		return "", apierr.New(apierr.InvalidOrganizationName).WithDetails(map[string]any{"field": "organization_name"})
	}
	return name, nil
}

// applyLists sets the list- and map-valued fields, validating each entry.
func (s Settings) applyLists(o *Organization) error {
	if s.EmailAllowedDomains != nil {
		d, err := normalizeDomains(allowedDomainRule, *s.EmailAllowedDomains)
		if err != nil {
			return err
		}
		o.EmailAllowedDomains = d
	}
	if s.ClaimedEmailDomains != nil {
		d, err := normalizeDomains(claimedDomainRule, *s.ClaimedEmailDomains)
		if err != nil {
			return err
		}
		o.ClaimedEmailDomains = d // unique across the project: writeClaims, in the same transaction
	}
	for _, l := range []struct {
		field string
		in    *[]string
		dst   *[]string
		known []string // nil: free-form identifiers
	}{
		{"allowed_auth_methods", s.AllowedAuthMethods, &o.AllowedAuthMethods, AuthMethods},
		{"allowed_mfa_methods", s.AllowedMFAMethods, &o.AllowedMFAMethods, MFAMethods},
		{"sso_jit_provisioning_allowed_connections", s.SSOJITProvisioningAllowedConnections, &o.SSOJITProvisioningAllowedConnections, nil},
		{"allowed_first_party_connected_apps", s.AllowedFirstPartyConnectedApps, &o.AllowedFirstPartyConnectedApps, nil},
		{"allowed_third_party_connected_apps", s.AllowedThirdPartyConnectedApps, &o.AllowedThirdPartyConnectedApps, nil},
	} {
		if l.in == nil {
			continue
		}
		out, err := cleanList(l.field, *l.in, l.known)
		if err != nil {
			return err
		}
		*l.dst = out
	}
	if s.AllowedOAuthTenants != nil {
		tenants := map[string][]string{}
		for provider, ids := range *s.AllowedOAuthTenants {
			if !slices.Contains(OAuthTenantProviders, provider) {
				return apierr.Invalid("allowed_oauth_tenants", fmt.Sprintf("%q is not one of %s.", provider, strings.Join(OAuthTenantProviders, ", ")))
			}
			out, err := cleanList("allowed_oauth_tenants", ids, nil)
			if err != nil {
				return err
			}
			if provider == "microsoft" && slices.ContainsFunc(out, func(id string) bool {
				return strings.EqualFold(id, providers.MicrosoftConsumersTenant)
			}) {
				// Refused rather than kept inert (no login carries it as a
				// tenant), so the admin learns why it would never match.
				return apierr.Invalid("allowed_oauth_tenants", providers.MicrosoftConsumersTenant+
					" is the tenant of every personal Microsoft account, not an organization's.")
			}
			if len(out) > 0 {
				tenants[provider] = out
			}
		}
		o.AllowedOAuthTenants = tenants
	}
	if s.RBACEmailImplicitRoleAssignments != nil {
		out := []RoleAssignment{}
		for _, a := range *s.RBACEmailImplicitRoleAssignments {
			if strings.TrimSpace(a.RoleID) == "" || strings.TrimSpace(a.Domain) == "" {
				return apierr.Invalid("rbac_email_implicit_role_assignments", "Each assignment needs a role_id and an email domain.")
			}
			d, err := normalizeDomains(rbacDomainRule, []string{a.Domain})
			if err != nil {
				return err
			}
			out = append(out, RoleAssignment{RoleID: strings.TrimSpace(a.RoleID), Domain: d[0]})
		}
		o.RBACEmailImplicitRoleAssignments = out
	}
	if s.CustomRoles != nil {
		o.CustomRoles = *s.CustomRoles // validated against the project policy by the rbac module (in UpdateIn's transaction)
	}
	return nil
}

// checkRules enforces the rules that tie settings together, after the
// request is applied, so the stored organization is always consistent.
func checkRules(o *Organization) error {
	for _, r := range []struct {
		field  string
		policy string
		list   int
		msg    string
	}{
		{"email_allowed_domains", o.EmailJITProvisioning, len(o.EmailAllowedDomains), "email_jit_provisioning RESTRICTED needs at least one email_allowed_domains entry."},
		{"email_allowed_domains", o.EmailInvites, len(o.EmailAllowedDomains), "email_invites RESTRICTED needs at least one email_allowed_domains entry."},
		{"allowed_auth_methods", o.AuthMethods, len(o.AllowedAuthMethods), "auth_methods RESTRICTED needs at least one allowed_auth_methods entry."},
		{"allowed_mfa_methods", o.MFAMethods, len(o.AllowedMFAMethods), "mfa_methods RESTRICTED needs at least one allowed_mfa_methods entry."},
		{"sso_jit_provisioning_allowed_connections", o.SSOJITProvisioning, len(o.SSOJITProvisioningAllowedConnections), "sso_jit_provisioning RESTRICTED needs at least one sso_jit_provisioning_allowed_connections entry."},
		{"allowed_oauth_tenants", o.OAuthTenantJITProvisioning, len(o.AllowedOAuthTenants), "oauth_tenant_jit_provisioning RESTRICTED needs at least one allowed_oauth_tenants entry."},
		{"allowed_first_party_connected_apps", o.FirstPartyConnectedAppsAllowedType, len(o.AllowedFirstPartyConnectedApps), "first_party_connected_apps_allowed_type RESTRICTED needs at least one allowed_first_party_connected_apps entry."},
		{"allowed_third_party_connected_apps", o.ThirdPartyConnectedAppsAllowedType, len(o.AllowedThirdPartyConnectedApps), "third_party_connected_apps_allowed_type RESTRICTED needs at least one allowed_third_party_connected_apps entry."},
	} {
		if r.policy == Restricted && r.list == 0 {
			return apierr.Invalid(r.field, r.msg)
		}
	}
	// An organization must keep at least one way for new members to join.
	if noWayToJoin(o) {
		return apierr.Invalid("email_invites", "sso_jit_provisioning, email_jit_provisioning and email_invites cannot all be NOT_ALLOWED.")
	}
	return nil
}

// cleanList trims, de-duplicates and checks a list of names; known == nil
// accepts any printable identifier. Its length is checkSizes' to bound.
func cleanList(field string, in, known []string) ([]string, error) {
	out := make([]string, 0, len(in))
	seen := make(map[string]bool, len(in))
	for _, v := range in {
		v = strings.TrimSpace(v)
		switch {
		case known != nil && !slices.Contains(known, v):
			return nil, apierr.Invalid(field, fmt.Sprintf("%q is not one of %s.", v, strings.Join(known, ", ")))
		case v == "" || len(v) > 256 || strings.ContainsFunc(v, unicode.IsControl):
			return nil, apierr.Invalid(field, field+" entries must be non-empty printable identifiers.")
		}
		if !seen[v] {
			seen[v] = true
			out = append(out, v)
		}
	}
	return out, nil
}
