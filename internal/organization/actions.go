package organization

// The built-in RBAC resources and the actions the SDK-face administration
// calls check (the rbac package serves them in every project policy). The
// names are those the public browser SDK's admin screens ask about and the
// Node client documents per request field.
const (
	ResourceOrganization = "stytch.organization"
	ResourceMember       = "stytch.member"
	ResourceSSO          = "stytch.sso"
	ResourceSCIM         = "stytch.scim"
	ResourceSelf         = "stytch.self" // a member acting on themselves
)

// Actions on stytch.organization.
const (
	ActionOrgName                = "update.info.name"
	ActionOrgSlug                = "update.info.slug"
	ActionOrgLogoURL             = "update.info.logo-url"
	ActionOrgSSOJIT              = "update.settings.sso-jit-provisioning"
	ActionOrgEmailJIT            = "update.settings.email-jit-provisioning"
	ActionOrgEmailInvites        = "update.settings.email-invites"
	ActionOrgAllowedDomains      = "update.settings.allowed-domains"
	ActionOrgDefaultSSO          = "update.settings.default-sso-connection"
	ActionOrgMFAPolicy           = "update.settings.mfa-policy"
	ActionOrgImplicitRoles       = "update.settings.implicit-roles"
	ActionOrgAllowedAuthMethods  = "update.settings.allowed-auth-methods"
	ActionOrgAllowedMFAMethods   = "update.settings.allowed-mfa-methods"
	ActionOrgOAuthTenantJIT      = "update.settings.oauth-tenant-jit-provisioning"
	ActionOrgAllowedOAuthTenants = "update.settings.allowed-oauth-tenants"
	ActionOrgConnectedApps       = "update.settings.connected-apps" // Latchkey's: the connected-app policy fields
	ActionOrgDelete              = "delete"
)

// Actions on stytch.member (another member) and stytch.self (the caller):
// the self resource has the member actions except create, search, roles
// and break-glass.
const (
	ActionCreate            = "create"
	ActionSearch            = "search"
	ActionRoles             = "update.settings.roles"
	ActionBreakglass        = "update.settings.is-breakglass"
	ActionName              = "update.info.name"
	ActionUntrustedMetadata = "update.info.untrusted-metadata"
	ActionEmail             = "update.info.email"
	ActionMFAPhone          = "update.info.mfa-phone"
	ActionDeleteMFAPhone    = "update.info.delete.mfa-phone"
	ActionDeleteMFATOTP     = "update.info.delete.mfa-totp"
	ActionDeletePassword    = "update.info.delete.password"
	ActionMFAEnrolled       = "update.settings.mfa-enrolled"
	ActionDefaultMFAMethod  = "update.settings.default-mfa-method"
	ActionRevokeSessions    = "revoke-sessions"
	ActionDelete            = "delete"
	// Named as the browser SDK's @rbac annotations name them (members and
	// self getConnectedApps, revokeConnectedApp, unlinkRetiredEmail).
	ActionGetConnectedApps   = "get.connected-apps"
	ActionRevokeConnectedApp = "revoke.connected-app"
	ActionUnlinkRetiredEmail = "update.info.unlink.retired-email"
)

// Actions on stytch.sso.
const (
	ActionSSOCreate = "create"
	ActionSSOGet    = "get"
	ActionSSOUpdate = "update"
	ActionSSODelete = "delete"
)

// Actions on stytch.scim (the organization's SCIM connection).
const (
	ActionSCIMCreate = "create"
	ActionSCIMGet    = "get"
	ActionSCIMUpdate = "update"
	ActionSCIMDelete = "delete"
)

// OrgActions lists every action on stytch.organization.
var OrgActions = []string{ActionOrgName, ActionOrgSlug, ActionOrgLogoURL, ActionOrgSSOJIT, ActionOrgEmailJIT,
	ActionOrgEmailInvites, ActionOrgAllowedDomains, ActionOrgDefaultSSO, ActionOrgMFAPolicy, ActionOrgImplicitRoles,
	ActionOrgAllowedAuthMethods, ActionOrgAllowedMFAMethods, ActionOrgOAuthTenantJIT, ActionOrgAllowedOAuthTenants,
	ActionOrgConnectedApps, ActionOrgDelete}

// SelfActions lists every action on stytch.self.
var SelfActions = []string{ActionName, ActionUntrustedMetadata, ActionEmail, ActionMFAPhone, ActionDeleteMFAPhone,
	ActionDeleteMFATOTP, ActionDeletePassword, ActionMFAEnrolled, ActionDefaultMFAMethod, ActionRevokeSessions, ActionDelete,
	ActionGetConnectedApps, ActionRevokeConnectedApp, ActionUnlinkRetiredEmail}

// MemberActions lists every action on stytch.member.
var MemberActions = append([]string{ActionCreate, ActionSearch, ActionRoles, ActionBreakglass}, SelfActions...)

// SSOActions lists every action on stytch.sso.
var SSOActions = []string{ActionSSOCreate, ActionSSOGet, ActionSSOUpdate, ActionSSODelete}

// SCIMActions lists every action on stytch.scim.
var SCIMActions = []string{ActionSCIMCreate, ActionSCIMGet, ActionSCIMUpdate, ActionSCIMDelete}

// Actions lists the stytch.organization actions an organization update
// needs: one per field group it changes.
func (s Settings) Actions() []string {
	var out []string
	add := func(set bool, action string) {
		if set {
			for _, a := range out {
				if a == action {
					return
				}
			}
			out = append(out, action)
		}
	}
	add(s.Name != nil, ActionOrgName)
	add(s.Slug != nil, ActionOrgSlug)
	add(s.LogoURL != nil, ActionOrgLogoURL)
	add(s.SSODefaultConnectionID != nil, ActionOrgDefaultSSO)
	add(s.SSOJITProvisioning != nil || s.SSOJITProvisioningAllowedConnections != nil, ActionOrgSSOJIT)
	add(s.EmailAllowedDomains != nil, ActionOrgAllowedDomains)
	add(s.EmailJITProvisioning != nil, ActionOrgEmailJIT)
	add(s.EmailInvites != nil, ActionOrgEmailInvites)
	add(s.AuthMethods != nil || s.AllowedAuthMethods != nil, ActionOrgAllowedAuthMethods)
	add(s.MFAPolicy != nil, ActionOrgMFAPolicy)
	add(s.RBACEmailImplicitRoleAssignments != nil, ActionOrgImplicitRoles)
	add(s.MFAMethods != nil || s.AllowedMFAMethods != nil, ActionOrgAllowedMFAMethods)
	add(s.OAuthTenantJITProvisioning != nil, ActionOrgOAuthTenantJIT)
	add(s.AllowedOAuthTenants != nil, ActionOrgAllowedOAuthTenants)
	add(s.FirstPartyConnectedAppsAllowedType != nil || s.AllowedFirstPartyConnectedApps != nil ||
		s.ThirdPartyConnectedAppsAllowedType != nil || s.AllowedThirdPartyConnectedApps != nil, ActionOrgConnectedApps)
	return out
}

// Actions lists the member actions an update needs (checked on
// stytch.member, or for the caller's own record on stytch.self first),
// one per field as the Node client documents them. unlink_email rides on
// the address change (update.info.email) and preserve_existing_sessions on
// the roles change (update.settings.roles) it qualifies; external_id is
// the backend's alone (authorizeMemberUpdate).
func (u MemberUpdate) Actions() []string {
	var out []string
	for _, f := range []struct {
		set    bool
		action string
	}{{u.Name != nil, ActionName}, {u.UntrustedMetadata != nil, ActionUntrustedMetadata},
		{u.IsBreakglass != nil, ActionBreakglass}, {u.EmailAddress != nil, ActionEmail},
		{u.Roles != nil || u.IsAdmin != nil, ActionRoles}, {u.MFAPhoneNumber != nil, ActionMFAPhone},
		{u.MFAEnrolled != nil, ActionMFAEnrolled}, {u.DefaultMFAMethod != nil, ActionDefaultMFAMethod}} {
		if f.set {
			out = append(out, f.action)
		}
	}
	return out
}
