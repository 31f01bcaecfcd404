package rbac

import (
	"slices"
	"strings"

	"github.com/latchkey/latchkey/internal/organization"
)

// Built-in resources: what the SDKs' administration calls act on. The
// action names are the ones the public browser SDK's admin screens check
// (useRbac) and the Node client documents per request field.
const (
	ResourceOrganization = "stytch.organization"
	ResourceMember       = "stytch.member"
	ResourceSSO          = "stytch.sso"
	ResourceSCIM         = "stytch.scim"
	ResourceSelf         = "stytch.self"
)

// Built-in roles: every member holds MemberRole; AdminRole administers the
// organization (the creator of an organization receives it).
const (
	MemberRole = organization.DefaultRole
	AdminRole  = organization.AdminRole
)

// ReservedPrefix starts every built-in resource id; custom resources may
// not use it.
const ReservedPrefix = "stytch"

// Actions on stytch.organization.
const (
	ActionOrgDelete = "delete"
)

// Actions on stytch.member (and, where the member acts on themselves,
// stytch.self).
const (
	ActionCreate             = "create"
	ActionDelete             = "delete"
	ActionSearch             = "search"
	ActionRevokeSessions     = "revoke-sessions"
	ActionName               = "update.info.name"
	ActionUntrustedMetadata  = "update.info.untrusted-metadata"
	ActionEmail              = "update.info.email"
	ActionMFAPhone           = "update.info.mfa-phone"
	ActionDeleteMFAPhone     = "update.info.delete.mfa-phone"
	ActionDeleteMFATOTP      = "update.info.delete.mfa-totp"
	ActionDeletePassword     = "update.info.delete.password"
	ActionBreakglass         = "update.settings.is-breakglass"
	ActionMFAEnrolled        = "update.settings.mfa-enrolled"
	ActionRoles              = "update.settings.roles"
	ActionDefaultMFAMethod   = "update.settings.default-mfa-method"
	ActionSSOCreate          = "create"
	ActionSSOGet             = "get"
	ActionSSOUpdate          = "update"
	ActionSSODelete          = "delete"
	ActionImplicitRoles      = "update.settings.implicit-roles"
	ActionOrgName            = "update.info.name"
	ActionOrgSlug            = "update.info.slug"
	ActionOrgLogoURL         = "update.info.logo-url"
	ActionAllowedAuthMethods = "update.settings.allowed-auth-methods"
	ActionAllowedMFAMethods  = "update.settings.allowed-mfa-methods"
)

// builtinResources are served in every project policy. Their actions are
// the organization package's lists, the very names its handlers check, so
// every action a call needs is one a custom role can be granted (a hand
// copy here once lacked update.settings.connected-apps). Each is cloned:
// the policy is served and merged, and must not share arrays with them.
var builtinResources = []Resource{
	{ResourceID: ResourceOrganization, Description: "The member's organization and its settings.",
		Actions: slices.Clone(organization.OrgActions)},
	{ResourceID: ResourceMember, Description: "The other members of the organization.",
		Actions: slices.Clone(organization.MemberActions)},
	{ResourceID: ResourceSSO, Description: "The organization's SSO connections.",
		Actions: slices.Clone(organization.SSOActions)},
	{ResourceID: ResourceSCIM, Description: "The organization's SCIM connection.",
		Actions: slices.Clone(organization.SCIMActions)},
	{ResourceID: ResourceSelf, Description: "The member acting on themselves.",
		Actions: slices.Clone(organization.SelfActions)},
}

func all(resources ...string) []Permission {
	out := make([]Permission, len(resources))
	for i, r := range resources {
		out[i] = Permission{ResourceID: r, Actions: []string{Wildcard}}
	}
	return out
}

// builtinRoles are served in every project policy; a custom policy may add
// permissions (on its own resources) to them but not take any away.
var builtinRoles = []Role{
	{RoleID: MemberRole, Description: "Granted to every member: manage their own account.",
		Permissions: all(ResourceSelf)},
	{RoleID: AdminRole, Description: "Administers the organization, its members and its SSO and SCIM connections.",
		Permissions: all(ResourceOrganization, ResourceMember, ResourceSSO, ResourceSCIM, ResourceSelf)},
}

// isBuiltinRole reports whether id is one of the two built-in roles.
func isBuiltinRole(id string) bool { return id == MemberRole || id == AdminRole }

// isReserved reports whether a resource id belongs to the built-ins.
func isReserved(id string) bool { return strings.HasPrefix(id, ReservedPrefix) }

// Effective merges the built-in policy with a project's custom part: the
// built-in resources come first, the built-in roles gain the permissions
// the custom part lists for them, and custom roles and scopes follow.
func Effective(custom Policy) *Policy {
	out := &Policy{Resources: slices.Clone(builtinResources), Scopes: []Scope{}}
	out.Resources = append(out.Resources, custom.Resources...)
	for _, b := range builtinRoles {
		r := Role{RoleID: b.RoleID, Description: b.Description, Permissions: slices.Clone(b.Permissions)}
		for _, c := range custom.Roles {
			if c.RoleID == b.RoleID {
				r.Permissions = append(r.Permissions, c.Permissions...)
			}
		}
		out.Roles = append(out.Roles, r)
	}
	for _, c := range custom.Roles {
		if !isBuiltinRole(c.RoleID) {
			out.Roles = append(out.Roles, c)
		}
	}
	out.Scopes = append(out.Scopes, custom.Scopes...)
	return out
}
