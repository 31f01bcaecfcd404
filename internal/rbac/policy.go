// Package rbac is role-based access control for organizations' members:
// the project policy (resources with their actions, roles with their
// permissions, custom scopes), organizations' own custom roles, the one
// matching rule of spec section 6, and the routes and checks built on it
// (GET /v1/b2b/rbac/policy, the organization policy routes, and the
// authorization every SDK-face administration call goes through).
//
// The rule, exactly: a caller holding roles R may perform action A on
// resource X when some role in R (a project role, or a custom role of the
// caller's organization) has a permission whose resource_id is X and whose
// actions contain A or "*". When the policy cannot be loaded the caller
// has no permissions.
//
// The project policy is the built-in part (the stytch.* resources and the
// stytch_member and stytch_admin roles, builtin.go) merged with the custom
// part the operator sets with `latchkey project rbac set`.
package rbac

import (
	"slices"

	"github.com/latchkey/latchkey/internal/organization"
)

// Wildcard in a permission's actions grants every action on its resource.
const Wildcard = "*"

// Permission lets a role (or scope) perform Actions on a resource.
type Permission = organization.Permission

// Role is a named set of permissions (the wire's PolicyRole; an
// organization's custom roles have the same shape).
type Role = organization.CustomRole

// Resource is something the customer's application protects, with the
// actions that can be performed on it.
type Resource struct {
	ResourceID  string   `json:"resource_id"`
	Description string   `json:"description"`
	Actions     []string `json:"actions"`
}

// Scope is a custom OAuth scope of the identity provider, mapped to the
// permissions a token with that scope carries.
type Scope struct {
	Scope       string       `json:"scope"`
	Description string       `json:"description"`
	Permissions []Permission `json:"permissions"`
}

// Policy is the wire shape of a project policy (the Node client's Policy,
// and the bootstrap's rbac_policy).
type Policy struct {
	Roles     []Role     `json:"roles"`
	Resources []Resource `json:"resources"`
	Scopes    []Scope    `json:"scopes"`
}

// Granting returns the ids of the roles among held that permit action on
// resource, in the order held lists them; custom are the organization's
// custom roles, consulted after the project's. Roles the policy does not
// define grant nothing. An empty result means "not authorized".
func (p *Policy) Granting(held []string, custom []Role, resource, action string) []string {
	var out []string
	for _, id := range held {
		if slices.Contains(out, id) {
			continue
		}
		if r := p.role(id, custom); r != nil && Permits(r.Permissions, resource, action) {
			out = append(out, id)
		}
	}
	return out
}

// role finds a role by id: the project's first, then the organization's.
func (p *Policy) role(id string, custom []Role) *Role {
	for i := range p.Roles {
		if p.Roles[i].RoleID == id {
			return &p.Roles[i]
		}
	}
	for i := range custom {
		if custom[i].RoleID == id {
			return &custom[i]
		}
	}
	return nil
}

// Permits is the matching rule: some permission names the resource and
// lists the action or the wildcard.
func Permits(perms []Permission, resource, action string) bool {
	for _, pm := range perms {
		if pm.ResourceID == resource && (slices.Contains(pm.Actions, action) || slices.Contains(pm.Actions, Wildcard)) {
			return true
		}
	}
	return false
}

// Resource finds a resource by id.
func (p *Policy) Resource(id string) *Resource {
	for i := range p.Resources {
		if p.Resources[i].ResourceID == id {
			return &p.Resources[i]
		}
	}
	return nil
}

// Scope finds a custom scope by name.
func (p *Policy) Scope(name string) *Scope {
	for i := range p.Scopes {
		if p.Scopes[i].Scope == name {
			return &p.Scopes[i]
		}
	}
	return nil
}

// HasRole reports whether the project policy or custom defines role id.
func (p *Policy) HasRole(id string, custom []Role) bool { return p.role(id, custom) != nil }

// ScopePermissions returns the permissions of the named custom scopes
// (for the identity provider's consent screen).
func (p *Policy) ScopePermissions(scopes []string) []Permission {
	var out []Permission
	for _, s := range p.Scopes {
		if slices.Contains(scopes, s.Scope) {
			out = append(out, s.Permissions...)
		}
	}
	return out
}

// ScopesLacking returns the custom scopes among requested whose
// permissions the held roles do not all have: the identity provider's
// consent screen blocks granting them (spec section 6). Scopes the policy
// does not define (openid, email...) are never lacking.
func (p *Policy) ScopesLacking(held []string, custom []Role, requested []string) []string {
	var out []string
	for _, s := range p.Scopes {
		if !slices.Contains(requested, s.Scope) {
			continue
		}
		for _, pm := range s.Permissions {
			if slices.ContainsFunc(pm.Actions, func(a string) bool { return len(p.Granting(held, custom, pm.ResourceID, a)) == 0 }) {
				out = append(out, s.Scope)
				break
			}
		}
	}
	return out
}
