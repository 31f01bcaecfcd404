package rbac

import (
	"fmt"
	"slices"
	"strings"

	"github.com/latchkey/latchkey/internal/apierr"
)

// validID bounds role, resource and scope ids and action names: printable,
// no spaces or quotes, so they embed safely in JWT claims, scope strings and
// search filters. It is ^[A-Za-z0-9_.:*/-]{1,128}$ written out: compiled, that
// bounded repetition is a 118 KB regexp program built at every start.
func validID(s string) bool {
	if len(s) < 1 || len(s) > 128 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || strings.IndexByte("_.:*/-", c) >= 0) {
			return false
		}
	}
	return true
}

const maxDescription = 512

// Bounds of an organization's custom roles (PUT
// /v1/b2b/rbac/organizations/{organization_id}), counted as sent (repeats
// included) and checked before anything else: the vendor states none, and
// without them one request of 100,000 action names held SQLite's one
// writer for most of a minute. 100 roles is the member's roles list's cap;
// a permission needs no more actions than that, since "*" names them all.
const (
	MaxOrgRoles          = 100
	MaxRolePermissions   = 100
	MaxPermissionActions = 100
)

// CheckOrgRolesBounds refuses organization custom roles past the bounds
// above, with invalid_request naming the list. It reads nothing else, so
// the route calls it before any transaction or policy read.
func CheckOrgRolesBounds(roles []Role) error {
	if len(roles) > MaxOrgRoles {
		return invalid("org_policy.roles", "An organization has at most %d custom roles.", MaxOrgRoles)
	}
	for _, r := range roles {
		if len(r.Permissions) > MaxRolePermissions {
			return invalid("org_policy.roles.permissions", "A role has at most %d permissions; %q has %d.", MaxRolePermissions, clip(r.RoleID), len(r.Permissions))
		}
		for _, p := range r.Permissions {
			if len(p.Actions) > MaxPermissionActions {
				return invalid("org_policy.roles.permissions.actions", "A permission has at most %d actions (\"*\" grants them all); %q has %d on %q.",
					MaxPermissionActions, clip(r.RoleID), len(p.Actions), clip(p.ResourceID))
			}
		}
	}
	return nil
}

// clip shortens an id quoted in an error message: a bound is checked
// before the ids are, so one may be any length the body allows.
func clip(s string) string {
	if len(s) > 128 {
		return s[:128] + "..."
	}
	return s
}

// invalid is the policy's validation error: an invalid_request naming the
// offending part.
func invalid(field, format string, args ...any) error {
	return apierr.Invalid(field, fmt.Sprintf(format, args...))
}

// Validate checks a custom policy part and returns it normalised (nil lists
// become empty). Resources must not use the reserved "stytch" prefix;
// roles and scopes may only name resources and actions that exist (built-in
// or custom); the built-in roles may be listed, to add permissions to them.
func Validate(custom Policy) (Policy, error) {
	out := Policy{Roles: []Role{}, Resources: []Resource{}, Scopes: []Scope{}}
	// Repeats are found with sets, not by scanning what came before: that
	// was quadratic in a list's length.
	seenResources := make(map[string]bool, len(custom.Resources))
	for _, r := range custom.Resources {
		switch {
		case !validID(r.ResourceID) || strings.Contains(r.ResourceID, Wildcard):
			return Policy{}, invalid("resources", "resource_id %q must be 1-128 letters, digits or _.:/-.", r.ResourceID)
		case isReserved(r.ResourceID):
			return Policy{}, invalid("resources", "resource_id %q may not start with %q: that prefix is reserved for the built-in resources.", r.ResourceID, ReservedPrefix)
		case seenResources[r.ResourceID]:
			return Policy{}, invalid("resources", "resource_id %q is listed twice.", r.ResourceID)
		case len(r.Description) > maxDescription:
			return Policy{}, invalid("resources", "The description of %q is longer than %d characters.", r.ResourceID, maxDescription)
		}
		actions, err := cleanActions("resources", r.ResourceID, r.Actions, false)
		if err != nil {
			return Policy{}, err
		}
		if len(actions) == 0 {
			return Policy{}, invalid("resources", "Resource %q needs at least one action.", r.ResourceID)
		}
		seenResources[r.ResourceID] = true
		out.Resources = append(out.Resources, Resource{ResourceID: r.ResourceID, Description: r.Description, Actions: actions})
	}
	known := indexResources(Effective(Policy{Resources: out.Resources}))
	roles, err := validateRoles("roles", custom.Roles, known, nil, true)
	if err != nil {
		return Policy{}, err
	}
	out.Roles = roles
	seenScopes := make(map[string]bool, len(custom.Scopes))
	for _, s := range custom.Scopes {
		switch {
		case !validID(s.Scope) || strings.Contains(s.Scope, Wildcard):
			return Policy{}, invalid("scopes", "scope %q must be 1-128 letters, digits or _.:/-.", s.Scope)
		case slices.Contains(reservedScopes, s.Scope):
			return Policy{}, invalid("scopes", "scope %q is a standard OpenID scope and cannot be redefined.", s.Scope)
		case seenScopes[s.Scope]:
			return Policy{}, invalid("scopes", "scope %q is listed twice.", s.Scope)
		case len(s.Description) > maxDescription:
			return Policy{}, invalid("scopes", "The description of %q is longer than %d characters.", s.Scope, maxDescription)
		}
		perms, err := validatePermissions("scopes", s.Scope, s.Permissions, known)
		if err != nil {
			return Policy{}, err
		}
		seenScopes[s.Scope] = true
		out.Scopes = append(out.Scopes, Scope{Scope: s.Scope, Description: s.Description, Permissions: perms})
	}
	return out, nil
}

// reservedScopes are the identity provider's standard scopes (spec 9).
var reservedScopes = []string{"openid", "profile", "email", "phone", "full_access", "offline_access"}

// ValidateOrgRoles checks an organization's custom roles against the
// project policy: ids unique, not a project role and not reserved, and
// permissions only on resources and actions the project defines.
func ValidateOrgRoles(roles []Role, project *Policy) ([]Role, error) {
	return validateRoles("org_policy", roles, indexResources(project), project.Roles, false)
}

// resourceIndex is a policy's resources as sets of their actions, so that
// checking a permission costs its own length, not the policy's.
type resourceIndex map[string]map[string]bool

func indexResources(p *Policy) resourceIndex {
	idx := make(resourceIndex, len(p.Resources))
	for _, r := range p.Resources {
		actions := make(map[string]bool, len(r.Actions))
		for _, a := range r.Actions {
			actions[a] = true
		}
		idx[r.ResourceID] = actions
	}
	return idx
}

func validateRoles(field string, roles []Role, known resourceIndex, taken []Role, builtinOK bool) ([]Role, error) {
	out := []Role{}
	takenIDs := make(map[string]bool, len(taken))
	for _, t := range taken {
		takenIDs[t.RoleID] = true
	}
	seen := make(map[string]bool, len(roles))
	for _, r := range roles {
		switch {
		case !validID(r.RoleID) || strings.Contains(r.RoleID, Wildcard):
			return nil, invalid(field, "role_id %q must be 1-128 letters, digits or _.:/-.", r.RoleID)
		case isBuiltinRole(r.RoleID) && !builtinOK, takenIDs[r.RoleID]:
			return nil, invalid(field, "role_id %q is already a project role.", r.RoleID)
		case strings.HasPrefix(r.RoleID, "stytch_") && !isBuiltinRole(r.RoleID):
			return nil, invalid(field, "role_id %q may not start with stytch_: that prefix is reserved for the built-in roles.", r.RoleID)
		case seen[r.RoleID]:
			return nil, invalid(field, "role_id %q is listed twice.", r.RoleID)
		case len(r.Description) > maxDescription:
			return nil, invalid(field, "The description of %q is longer than %d characters.", r.RoleID, maxDescription)
		}
		perms, err := validatePermissions(field, r.RoleID, r.Permissions, known)
		if err != nil {
			return nil, err
		}
		if isBuiltinRole(r.RoleID) {
			for _, p := range perms {
				if isReserved(p.ResourceID) {
					return nil, invalid(field, "The permissions of %s on the built-in resources are fixed; list only custom resources for it.", r.RoleID)
				}
			}
		}
		seen[r.RoleID] = true
		out = append(out, Role{RoleID: r.RoleID, Description: r.Description, Permissions: perms})
	}
	return out, nil
}

// validatePermissions checks that each permission names a known resource
// and only its actions (or the wildcard).
func validatePermissions(field, owner string, perms []Permission, known resourceIndex) ([]Permission, error) {
	out := []Permission{}
	for _, p := range perms {
		res, ok := known[p.ResourceID]
		if !ok {
			return nil, invalid(field, "%q names resource %q, which the policy does not define.", owner, p.ResourceID)
		}
		actions, err := cleanActions(field, owner, p.Actions, true)
		if err != nil {
			return nil, err
		}
		if len(actions) == 0 {
			return nil, invalid(field, "%q needs at least one action on %q.", owner, p.ResourceID)
		}
		for _, a := range actions {
			if a != Wildcard && !res[a] {
				return nil, invalid(field, "%q names action %q, which resource %q does not define.", owner, a, p.ResourceID)
			}
		}
		out = append(out, Permission{ResourceID: p.ResourceID, Actions: actions})
	}
	return out, nil
}

// cleanActions de-duplicates and checks action names; the wildcard is
// allowed in permissions only.
func cleanActions(field, owner string, in []string, wildcardOK bool) ([]string, error) {
	out := []string{}
	seen := make(map[string]bool, len(in))
	for _, a := range in {
		switch {
		case a == Wildcard && wildcardOK:
		case a == Wildcard || !validID(a) || strings.Contains(a, Wildcard):
			return nil, invalid(field, "Action %q of %q must be 1-128 letters, digits or _.:/-.", clip(a), owner)
		}
		if !seen[a] {
			seen[a] = true
			out = append(out, a)
		}
	}
	return out, nil
}
