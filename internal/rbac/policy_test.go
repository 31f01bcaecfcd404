package rbac

import (
	"slices"
	"testing"

	"github.com/latchkey/latchkey/internal/apierr"
)

func docs() Policy {
	return Policy{
		Resources: []Resource{{ResourceID: "documents", Actions: []string{"read", "write", "delete"}},
			{ResourceID: "billing", Actions: []string{"view"}}},
		Roles: []Role{
			{RoleID: "editor", Permissions: []Permission{{ResourceID: "documents", Actions: []string{"read", "write"}}}},
			{RoleID: "owner", Permissions: []Permission{{ResourceID: "documents", Actions: []string{"*"}}}},
			{RoleID: MemberRole, Permissions: []Permission{{ResourceID: "documents", Actions: []string{"read"}}}},
		},
		Scopes: []Scope{{Scope: "read:docs", Permissions: []Permission{{ResourceID: "documents", Actions: []string{"read"}}}}},
	}
}

// The rule of spec 6: a role matches when resource_id is equal and the
// actions contain the action or "*"; anything else grants nothing.
func TestGrantingRule(t *testing.T) {
	clean, err := Validate(docs())
	if err != nil {
		t.Fatal(err)
	}
	p := Effective(clean)
	custom := []Role{{RoleID: "auditor", Permissions: []Permission{{ResourceID: "billing", Actions: []string{"view"}}}}}
	for _, c := range []struct {
		name             string
		held             []string
		resource, action string
		want             []string
	}{
		{"exact action", []string{"editor"}, "documents", "write", []string{"editor"}},
		{"action not listed", []string{"editor"}, "documents", "delete", nil},
		{"wildcard action", []string{"owner"}, "documents", "delete", []string{"owner"}},
		{"wildcard is not a prefix match on resources", []string{"owner"}, "documents.secret", "read", nil},
		{"every granting role, in held order", []string{"owner", "stytch_member", "editor"}, "documents", "read", []string{"owner", "stytch_member", "editor"}},
		{"built-in role gains custom permissions", []string{"stytch_member"}, "documents", "read", []string{"stytch_member"}},
		{"built-in permissions stay", []string{"stytch_member"}, "stytch.self", "update.info.name", []string{"stytch_member"}},
		{"member may not administer others", []string{"stytch_member"}, "stytch.member", "delete", nil},
		{"admin wildcard on members", []string{"stytch_admin"}, "stytch.member", "delete", []string{"stytch_admin"}},
		{"admin has no custom resource by default", []string{"stytch_admin"}, "documents", "read", nil},
		{"organization custom role", []string{"auditor"}, "billing", "view", []string{"auditor"}},
		{"unknown role grants nothing", []string{"ghost"}, "documents", "read", nil},
		{"no roles", nil, "documents", "read", nil},
		{"resource compared exactly", []string{"editor"}, "Documents", "read", nil},
		{"duplicates collapse", []string{"editor", "editor"}, "documents", "read", []string{"editor"}},
	} {
		if got := p.Granting(c.held, custom, c.resource, c.action); !slices.Equal(got, c.want) {
			t.Errorf("%s: got %v, want %v", c.name, got, c.want)
		}
	}
	if got := p.ScopePermissions([]string{"read:docs", "openid"}); len(got) != 1 || got[0].ResourceID != "documents" {
		t.Errorf("scope permissions: %v", got)
	}
}

// The served policy starts with the built-in resources and roles, whatever
// the custom part says.
func TestEffectiveKeepsBuiltins(t *testing.T) {
	p := Effective(Policy{})
	for _, id := range []string{ResourceOrganization, ResourceMember, ResourceSSO, ResourceSelf} {
		if p.Resource(id) == nil {
			t.Errorf("missing built-in resource %s", id)
		}
	}
	if !p.HasRole(MemberRole, nil) || !p.HasRole(AdminRole, nil) || len(p.Roles) != 2 || p.Scopes == nil {
		t.Errorf("built-in roles: %+v", p)
	}
	// The admin operations the SDK performs are all covered.
	for _, a := range []string{"delete", "update.settings.implicit-roles", "update.info.name"} {
		if len(p.Granting([]string{AdminRole}, nil, ResourceOrganization, a)) == 0 {
			t.Errorf("admin cannot %s the organization", a)
		}
	}
}

func TestValidateRefusals(t *testing.T) {
	res := []Resource{{ResourceID: "documents", Actions: []string{"read"}}}
	perm := func(r string, a ...string) []Permission { return []Permission{{ResourceID: r, Actions: a}} }
	for name, p := range map[string]Policy{
		"reserved resource prefix": {Resources: []Resource{{ResourceID: "stytch.files", Actions: []string{"read"}}}},
		"resource without actions": {Resources: []Resource{{ResourceID: "documents"}}},
		"duplicate resource":       {Resources: append(res, res...)},
		"wildcard resource action": {Resources: []Resource{{ResourceID: "documents", Actions: []string{"*"}}}},
		"bad resource id":          {Resources: []Resource{{ResourceID: "my docs", Actions: []string{"read"}}}},
		"unknown resource":         {Resources: res, Roles: []Role{{RoleID: "r", Permissions: perm("files", "read")}}},
		"unknown action":           {Resources: res, Roles: []Role{{RoleID: "r", Permissions: perm("documents", "write")}}},
		"duplicate role":           {Resources: res, Roles: []Role{{RoleID: "r"}, {RoleID: "r"}}},
		"reserved role prefix":     {Roles: []Role{{RoleID: "stytch_owner"}}},
		"built-in on built-in":     {Roles: []Role{{RoleID: AdminRole, Permissions: perm(ResourceOrganization, "delete")}}},
		"permission w/o actions":   {Resources: res, Roles: []Role{{RoleID: "r", Permissions: perm("documents")}}},
		"standard scope":           {Scopes: []Scope{{Scope: "openid"}}},
		"scope on unknown":         {Scopes: []Scope{{Scope: "x", Permissions: perm("files", "read")}}},
	} {
		if _, err := Validate(p); !apierr.Is(err, apierr.InvalidRequest) {
			t.Errorf("%s: got %v, want invalid_request", name, err)
		}
	}
	// Built-in resources may be granted to custom roles.
	if _, err := Validate(Policy{Roles: []Role{{RoleID: "helpdesk", Permissions: perm(ResourceMember, "update.info.name", "search")}}}); err != nil {
		t.Errorf("custom role on built-in resource: %v", err)
	}
	proj := Effective(Policy{Roles: []Role{{RoleID: "editor"}}})
	for name, roles := range map[string][]Role{
		"collides with project role": {{RoleID: "editor"}},
		"collides with built-in":     {{RoleID: MemberRole}},
		"unknown resource":           {{RoleID: "x", Permissions: perm("files", "read")}},
	} {
		if _, err := ValidateOrgRoles(roles, proj); !apierr.Is(err, apierr.InvalidRequest) {
			t.Errorf("org roles %s: got %v, want invalid_request", name, err)
		}
	}
}
