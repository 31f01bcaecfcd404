package organization

import (
	"time"

	"github.com/latchkey/latchkey/internal/httpapi"
)

// SDK wire types: what a browser holding only the public token sees of
// members and organizations. They hold exactly the fields @stytch/vanilla-js
// declares (internal/apptest/sdk_wire.json), minus what Latchkey withholds
// from browsers: trusted_metadata (written with the project secret, where
// customers keep server-side facts), retired email addresses (a member's
// address history), is_locked and the organization's timestamps and claimed
// domains (not declared). Phone numbers are masked. The backend face keeps
// Member and Organization as they are.

// SDKMember is a member on the SDK face.
type SDKMember struct {
	OrganizationID         string            `json:"organization_id"`
	MemberID               string            `json:"member_id"`
	EmailAddress           string            `json:"email_address"`
	EmailAddressVerified   bool              `json:"email_address_verified"`
	Status                 string            `json:"status"`
	Name                   string            `json:"name"`
	UntrustedMetadata      map[string]any    `json:"untrusted_metadata"`
	CreatedAt              time.Time         `json:"created_at"`
	UpdatedAt              time.Time         `json:"updated_at"`
	SSORegistrations       []SSORegistration `json:"sso_registrations"`
	IsBreakglass           bool              `json:"is_breakglass"`
	IsAdmin                bool              `json:"is_admin"`
	MemberPasswordID       string            `json:"member_password_id"`
	MFAEnrolled            bool              `json:"mfa_enrolled"`
	MFAPhoneNumber         string            `json:"mfa_phone_number"`
	MFAPhoneNumberVerified bool              `json:"mfa_phone_number_verified"`
	Roles                  []MemberRole      `json:"roles"`
	DefaultMFAMethod       string            `json:"default_mfa_method"`
	TOTPRegistrationID     string            `json:"totp_registration_id"`
	OAuthRegistrations     []any             `json:"oauth_registrations"`
	ExternalID             string            `json:"external_id"`
}

// SDK returns the member's SDK wire form (nil for nil).
func (m *Member) SDK() *SDKMember {
	if m == nil {
		return nil
	}
	return &SDKMember{OrganizationID: m.OrganizationID, MemberID: m.MemberID, EmailAddress: m.EmailAddress,
		EmailAddressVerified: m.EmailAddressVerified, Status: m.Status, Name: m.Name,
		UntrustedMetadata: m.UntrustedMetadata, CreatedAt: m.CreatedAt, UpdatedAt: m.UpdatedAt,
		SSORegistrations: m.SSORegistrations, IsBreakglass: m.IsBreakglass, IsAdmin: m.IsAdmin,
		MemberPasswordID: m.MemberPasswordID, MFAEnrolled: m.MFAEnrolled, MFAPhoneNumber: MaskPhone(m.MFAPhoneNumber),
		MFAPhoneNumberVerified: m.MFAPhoneNumberVerified, Roles: m.Roles, DefaultMFAMethod: m.DefaultMFAMethod,
		TOTPRegistrationID: m.TOTPRegistrationID, OAuthRegistrations: m.OAuthRegistrations, ExternalID: m.ExternalID}
}

// SDKMembers converts a list.
func SDKMembers(ms []*Member) []*SDKMember {
	out := make([]*SDKMember, 0, len(ms))
	for _, m := range ms {
		out = append(out, m.SDK())
	}
	return out
}

// MaskPhone keeps a phone number's leading "+" and last four digits: enough
// for a member to recognise their own number, too little to learn it.
func MaskPhone(n string) string {
	if n == "" {
		return ""
	}
	b := []byte(n)
	keep := 4
	for i := len(b) - 1; i >= 0; i-- {
		switch {
		case b[i] < '0' || b[i] > '9':
		case keep > 0:
			keep--
		default:
			b[i] = '*'
		}
	}
	return string(b)
}

// SDKOrganization is an organization on the SDK face.
type SDKOrganization struct {
	OrganizationID                       string                `json:"organization_id"`
	OrganizationName                     string                `json:"organization_name"`
	OrganizationSlug                     string                `json:"organization_slug"`
	OrganizationExternalID               string                `json:"organization_external_id,omitempty"`
	OrganizationLogoURL                  string                `json:"organization_logo_url"`
	CustomRoles                          []CustomRole          `json:"custom_roles"`
	SSODefaultConnectionID               *string               `json:"sso_default_connection_id"`
	SSOJITProvisioning                   string                `json:"sso_jit_provisioning"`
	SSOJITProvisioningAllowedConnections []string              `json:"sso_jit_provisioning_allowed_connections"`
	SSOActiveConnections                 []SSOActiveConnection `json:"sso_active_connections"`
	SCIMActiveConnection                 *SDKSCIMConnection    `json:"scim_active_connection"`
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
	FirstPartyConnectedAppsAllowedType   string                `json:"first_party_connected_apps_allowed_type"`
	AllowedFirstPartyConnectedApps       []string              `json:"allowed_first_party_connected_apps"`
	ThirdPartyConnectedAppsAllowedType   string                `json:"third_party_connected_apps_allowed_type"`
	AllowedThirdPartyConnectedApps       []string              `json:"allowed_third_party_connected_apps"`
}

// SDK returns the summary's SDK wire form (nil for nil).
func (c *SCIMConnection) SDK() *SDKSCIMConnection {
	if c == nil {
		return nil
	}
	return &SDKSCIMConnection{ConnectionID: c.ConnectionID, DisplayName: c.DisplayName}
}

// SDK returns the organization's SDK wire form (nil for nil).
func (o *Organization) SDK() *SDKOrganization {
	if o == nil {
		return nil
	}
	return &SDKOrganization{OrganizationID: o.OrganizationID, OrganizationName: o.OrganizationName,
		OrganizationSlug: o.OrganizationSlug, OrganizationExternalID: o.OrganizationExternalID,
		OrganizationLogoURL: o.OrganizationLogoURL, CustomRoles: o.CustomRoles,
		SSODefaultConnectionID: o.SSODefaultConnectionID, SSOJITProvisioning: o.SSOJITProvisioning,
		SSOJITProvisioningAllowedConnections: o.SSOJITProvisioningAllowedConnections,
		SSOActiveConnections:                 o.SSOActiveConnections, SCIMActiveConnection: o.SCIMActiveConnection.SDK(),
		EmailAllowedDomains: o.EmailAllowedDomains, EmailJITProvisioning: o.EmailJITProvisioning,
		EmailInvites: o.EmailInvites, OAuthTenantJITProvisioning: o.OAuthTenantJITProvisioning,
		AllowedOAuthTenants: o.AllowedOAuthTenants, AuthMethods: o.AuthMethods, AllowedAuthMethods: o.AllowedAuthMethods,
		MFAMethods: o.MFAMethods, AllowedMFAMethods: o.AllowedMFAMethods, MFAPolicy: o.MFAPolicy,
		RBACEmailImplicitRoleAssignments:   o.RBACEmailImplicitRoleAssignments,
		FirstPartyConnectedAppsAllowedType: o.FirstPartyConnectedAppsAllowedType,
		AllowedFirstPartyConnectedApps:     o.AllowedFirstPartyConnectedApps,
		ThirdPartyConnectedAppsAllowedType: o.ThirdPartyConnectedAppsAllowedType,
		AllowedThirdPartyConnectedApps:     o.AllowedThirdPartyConnectedApps}
}

// SDKMemberResponse is MemberResponseCommon on the SDK face.
type SDKMemberResponse struct {
	httpapi.Common
	MemberID     string           `json:"member_id"`
	Member       *SDKMember       `json:"member"`
	Organization *SDKOrganization `json:"organization"`
}

// SDKMemberAnswer builds MemberResponseCommon for the SDK face.
func SDKMemberAnswer(m *Member, o *Organization) *SDKMemberResponse {
	return &SDKMemberResponse{MemberID: m.MemberID, Member: m.SDK(), Organization: o.SDK()}
}

// SDKWire implements httpapi.SDKWirer.
func (r *MemberResponse) SDKWire() any { return SDKMemberAnswer(r.Member, r.Organization) }

type sdkOrgResponse struct {
	httpapi.Common
	Organization *SDKOrganization `json:"organization"`
}

// SDKWire implements httpapi.SDKWirer.
func (r *OrgResponse) SDKWire() any { return &sdkOrgResponse{Organization: r.Organization.SDK()} }

type sdkMemberSearchResponse struct {
	httpapi.Common
	Members         []*SDKMember                `json:"members"`
	ResultsMetadata ResultsMetadata             `json:"results_metadata"`
	Organizations   map[string]*SDKOrganization `json:"organizations"`
}

// SDKWire implements httpapi.SDKWirer.
func (r *MemberSearchResponse) SDKWire() any {
	orgs := make(map[string]*SDKOrganization, len(r.Organizations))
	for id, o := range r.Organizations {
		orgs[id] = o.SDK()
	}
	return &sdkMemberSearchResponse{Members: SDKMembers(r.Members), ResultsMetadata: r.ResultsMetadata, Organizations: orgs}
}
