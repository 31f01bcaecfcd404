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
	for _, r := range custom.Resources {
		switch {
		case !validID(r.ResourceID) || strings.Contains(r.ResourceID, Wildcard):
			return Policy{}, invalid("resources", "resource_id %q must be 1-128 letters, digits or _.:/-.", r.ResourceID)
		case isReserved(r.ResourceID):
			return Policy{}, invalid("resources", "resource_id %q may not start with %q: that prefix is reserved for the built-in resources.", r.ResourceID, ReservedPrefix)
		case slices.ContainsFunc(out.Resources, func(o Resource) bool { return o.ResourceID == r.ResourceID }):
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
		out.Resources = append(out.Resources, Resource{ResourceID: r.ResourceID, Description: r.Description, Actions: actions})
	}
	known := Effective(Policy{Resources: out.Resources})
	roles, err := validateRoles("roles", custom.Roles, known, nil, true)
	if err != nil {
		return Policy{}, err
	}
	out.Roles = roles
	for _, s := range custom.Scopes {
		switch {
		case !validID(s.Scope) || strings.Contains(s.Scope, Wildcard):
			return Policy{}, invalid("scopes", "scope %q must be 1-128 letters, digits or _.:/-.", s.Scope)
		case slices.Contains(reservedScopes, s.Scope):
			return Policy{}, invalid("scopes", "scope %q is a standard OpenID scope and cannot be redefined.", s.Scope)
		case slices.ContainsFunc(out.Scopes, func(o Scope) bool { return o.Scope == s.Scope }):
			return Policy{}, invalid("scopes", "scope %q is listed twice.", s.Scope)
		case len(s.Description) > maxDescription:
			return Policy{}, invalid("scopes", "The description of %q is longer than %d characters.", s.Scope, maxDescription)
		}
		perms, err := validatePermissions("scopes", s.Scope, s.Permissions, known)
		if err != nil {
			return Policy{}, err
		}
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
	return validateRoles("org_policy", roles, project, project.Roles, false)
}

func validateRoles(field string, roles []Role, known *Policy, taken []Role, builtinOK bool) ([]Role, error) {
	out := []Role{}
	for _, r := range roles {
		switch {
		case !validID(r.RoleID) || strings.Contains(r.RoleID, Wildcard):
			return nil, invalid(field, "role_id %q must be 1-128 letters, digits or _.:/-.", r.RoleID)
		case isBuiltinRole(r.RoleID) && !builtinOK,
			slices.ContainsFunc(taken, func(o Role) bool { return o.RoleID == r.RoleID }):
			return nil, invalid(field, "role_id %q is already a project role.", r.RoleID)
		case strings.HasPrefix(r.RoleID, "stytch_") && !isBuiltinRole(r.RoleID):
			return nil, invalid(field, "role_id %q may not start with stytch_: that prefix is reserved for the built-in roles.", r.RoleID)
		case slices.ContainsFunc(out, func(o Role) bool { return o.RoleID == r.RoleID }):
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
		out = append(out, Role{RoleID: r.RoleID, Description: r.Description, Permissions: perms})
	}
	return out, nil
}

// validatePermissions checks that each permission names a known resource
// and only its actions (or the wildcard).
func validatePermissions(field, owner string, perms []Permission, known *Policy) ([]Permission, error) {
	out := []Permission{}
	for _, p := range perms {
		res := known.Resource(p.ResourceID)
		if res == nil {
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
			if a != Wildcard && !slices.Contains(res.Actions, a) {
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
	for _, a := range in {
		switch {
		case a == Wildcard && wildcardOK:
		case a == Wildcard || !validID(a) || strings.Contains(a, Wildcard):
			return nil, invalid(field, "Action %q of %q must be 1-128 letters, digits or _.:/-.", a, owner)
		}
		if !slices.Contains(out, a) {
			out = append(out, a)
		}
	}
	return out, nil
}
