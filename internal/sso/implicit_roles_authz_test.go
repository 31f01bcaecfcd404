package sso_test

import (
	"net/http"
	"testing"

	"github.com/latchkey/latchkey/internal/apptest"
	"github.com/latchkey/latchkey/internal/organization"
	"github.com/latchkey/latchkey/internal/rbac"
)

// rolesPolicy is docsPolicy with two administrators' roles: sso_admin
// holds every stytch.sso action and nothing else; roles_admin holds
// stytch.organization's update.settings.implicit-roles as well.
func rolesPolicy() rbac.Policy {
	p := docsPolicy
	p.Roles = append([]rbac.Role{
		{RoleID: "sso_admin", Description: "Manages SSO connections", Permissions: []rbac.Permission{
			{ResourceID: "stytch.sso", Actions: []string{"*"}}}},
		{RoleID: "roles_admin", Description: "Manages SSO connections and implicit roles", Permissions: []rbac.Permission{
			{ResourceID: "stytch.sso", Actions: []string{"*"}},
			{ResourceID: "stytch.organization", Actions: []string{"update.settings.implicit-roles"}}}},
	}, p.Roles...)
	return p
}

// memberWithRole creates a member of org holding role and returns a session token.
func memberWithRole(t *testing.T, e *apptest.Env, org, email, role string) string {
	t.Helper()
	r := e.Backend(http.MethodPost, "/v1/b2b/organizations/"+org+"/members", map[string]any{"email_address": email, "roles": []string{role}})
	apptest.Want(t, r, 200, "")
	token, _ := e.LoginByEmailOTP(org, email)
	return token
}

// adminFace sends a connection administration call as a member, on the
// SDK face (sdkPath) or on the backend face with the member session header
// (backendPath).
type adminFace struct {
	name string
	do   func(method, sdkPath, backendPath string, body any, token string) apptest.Resp
}

func adminFaces(e *apptest.Env) []adminFace {
	return []adminFace{
		{"sdk", func(method, sdkPath, _ string, body any, token string) apptest.Resp {
			return e.SDK(method, sdkPath, body, token)
		}},
		{"backend", func(method, _, backendPath string, body any, token string) apptest.Resp {
			return e.BackendAs(method, backendPath, body, organization.MemberSessionHeader, token)
		}},
	}
}

// TestSAMLImplicitRolesNeedTheOrganizationPermission: stytch.sso update
// lets a member edit a SAML connection, but changing who the connection
// makes what (its implicit role assignments) also takes
// stytch.organization's update.settings.implicit-roles, as SCIM group and
// email-domain assignments do; otherwise a member allowed only SSO
// administration could assign stytch_admin to the connection and become
// an administrator at their next login through it. The stored lists sent
// back with another edit (the Admin Portal saves whole objects) need no
// more than stytch.sso update.
func TestSAMLImplicitRolesNeedTheOrganizationPermission(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		if _, err := e.App.RBAC.SetCustom(t.Context(), e.Project.Project.ID, rolesPolicy()); err != nil {
			t.Fatal(err)
		}
		s := newSAMLEnv(t, e, nil)
		ssoAdmin := memberWithRole(t, e, s.orgID, "sam@acme.test", "sso_admin")
		rolesAdmin := memberWithRole(t, e, s.orgID, "rita@acme.test", "roles_admin")
		backendPath := "/v1/b2b/sso/saml/" + s.orgID + "/connections/" + s.connID
		sdkPath := "/b2b/sso/saml/" + s.connID
		connRoles := func(ids ...string) []any {
			out := []any{}
			for _, id := range ids {
				out = append(out, map[string]any{"role_id": id})
			}
			return out
		}
		groupRoles := func(id, g string) []any { return []any{map[string]any{"role_id": id, "group": g}} }
		stored := map[string]any{"saml_connection_implicit_role_assignments": connRoles("viewer", "editor"),
			"saml_group_implicit_role_assignments": groupRoles("editor", "writers")}
		apptest.Want(t, e.Backend(http.MethodPut, backendPath, stored), 200, "")
		wantStored := func(what string) {
			t.Helper()
			r := e.Backend(http.MethodGet, "/v1/b2b/sso/"+s.orgID, nil)
			apptest.Want(t, r, 200, "")
			c := r.Body["saml_connections"].([]any)[0].(map[string]any)
			cr, gr := c["saml_connection_implicit_role_assignments"].([]any), c["saml_group_implicit_role_assignments"].([]any)
			ids := map[any]bool{}
			for _, a := range cr {
				ids[a.(map[string]any)["role_id"]] = true
			}
			if len(cr) != 2 || !ids["viewer"] || !ids["editor"] ||
				len(gr) != 1 || gr[0].(map[string]any)["role_id"] != "editor" || gr[0].(map[string]any)["group"] != "writers" {
				t.Fatalf("%s: stored assignments changed: %v %v", what, cr, gr)
			}
		}

		for _, f := range adminFaces(e) {
			put := func(body map[string]any, token string) apptest.Resp {
				return f.do(http.MethodPut, sdkPath, backendPath, body, token)
			}
			// Any change of either list, a removal included, is refused
			// without the organization permission.
			for _, body := range []map[string]any{
				{"saml_connection_implicit_role_assignments": connRoles("stytch_admin")},
				{"saml_connection_implicit_role_assignments": connRoles("viewer", "editor", "stytch_admin")},
				{"saml_connection_implicit_role_assignments": connRoles()},
				{"saml_group_implicit_role_assignments": groupRoles("stytch_admin", "writers")},
				{"saml_group_implicit_role_assignments": groupRoles("editor", "admins")},
				{"display_name": "Renamed", "saml_connection_implicit_role_assignments": connRoles("viewer", "editor"),
					"saml_group_implicit_role_assignments": groupRoles("stytch_admin", "writers")},
			} {
				if r := put(body, ssoAdmin); r.Status != 403 || r.ErrType() != "unauthorized_action" {
					t.Errorf("%s: sso_admin's change %v: %d %s", f.name, body, r.Status, r.Raw)
				}
			}
			wantStored(f.name + " refused changes")

			// The stored lists sent back, in another order, with a rename.
			r := put(map[string]any{"display_name": "Acme Okta " + f.name,
				"saml_connection_implicit_role_assignments": connRoles("editor", "viewer"),
				"saml_group_implicit_role_assignments":      groupRoles("editor", "writers")}, ssoAdmin)
			apptest.Want(t, r, 200, "")
			wantStored(f.name + " unchanged lists")

			// With the organization permission a member may change them.
			apptest.Want(t, put(map[string]any{"saml_connection_implicit_role_assignments": connRoles("stytch_admin")}, rolesAdmin), 200, "")
			apptest.Want(t, put(stored, rolesAdmin), 200, "")
			wantStored(f.name + " restored")
		}
	})
}

// TestExternalImplicitRolesNeedTheOrganizationPermission: the same rule
// for an external connection's own assignments, on create (any assignment
// is a change from none) and update.
func TestExternalImplicitRolesNeedTheOrganizationPermission(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		if _, err := e.App.RBAC.SetCustom(t.Context(), e.Project.Project.ID, rolesPolicy()); err != nil {
			t.Fatal(err)
		}
		s := newSAMLEnv(t, e, nil)
		apptest.Want(t, e.Backend(http.MethodPut, "/v1/b2b/sso/saml/"+s.orgID+"/connections/"+s.connID, map[string]any{
			"attribute_mapping": map[string]any{"email": "mail", "groups": "memberOf"}}), 200, "")
		target := e.CreateOrg("globex", "NOT_ALLOWED", nil)
		ssoAdmin := memberWithRole(t, e, target, "sam@globex.test", "sso_admin")
		rolesAdmin := memberWithRole(t, e, target, "rita@globex.test", "roles_admin")
		role := func(id string) []any { return []any{map[string]any{"role_id": id}} }
		group := func(id string) []any { return []any{map[string]any{"role_id": id, "group": "writers"}} }
		source := map[string]any{"external_organization_id": s.orgID, "external_connection_id": s.connID}
		with := func(extra map[string]any) map[string]any {
			out := map[string]any{}
			for _, m := range []map[string]any{source, extra} {
				for k, v := range m {
					out[k] = v
				}
			}
			return out
		}

		for _, f := range adminFaces(e) {
			create := func(body map[string]any, token string) apptest.Resp {
				return f.do(http.MethodPost, "/b2b/sso/external", "/v1/b2b/sso/external/"+target, body, token)
			}
			for _, extra := range []map[string]any{
				{"connection_implicit_role_assignments": role("stytch_admin")},
				{"group_implicit_role_assignments": group("stytch_admin")},
			} {
				if r := create(with(extra), ssoAdmin); r.Status != 403 || r.ErrType() != "unauthorized_action" {
					t.Errorf("%s: sso_admin's create with %v: %d %s", f.name, extra, r.Status, r.Raw)
				}
			}
			if n := len(externals(t, e, target)); n != 0 {
				t.Fatalf("%s: a refused create stored %d connections", f.name, n)
			}
			// Empty lists assign nothing: no permission beyond stytch.sso.
			r := create(with(map[string]any{"connection_implicit_role_assignments": []any{},
				"group_implicit_role_assignments": []any{}}), ssoAdmin)
			apptest.Want(t, r, 200, "")
			id := r.Data()["connection"]
			if id == nil {
				id = r.Body["connection"]
			}
			connID := id.(map[string]any)["connection_id"].(string)
			update := func(body map[string]any, token string) apptest.Resp {
				return f.do(http.MethodPut, "/b2b/sso/external/"+connID, "/v1/b2b/sso/external/"+target+"/connections/"+connID, body, token)
			}

			apptest.Want(t, update(map[string]any{"external_connection_implicit_role_assignments": role("stytch_admin")}, ssoAdmin),
				403, "unauthorized_action")
			apptest.Want(t, update(map[string]any{"external_group_implicit_role_assignments": group("stytch_admin")}, ssoAdmin),
				403, "unauthorized_action")
			apptest.Want(t, update(map[string]any{"external_connection_implicit_role_assignments": role("viewer"),
				"external_group_implicit_role_assignments": group("editor")}, rolesAdmin), 200, "")
			// The stored lists sent back with a rename need stytch.sso only;
			// emptying one is a change.
			apptest.Want(t, update(map[string]any{"display_name": "Via " + f.name,
				"external_connection_implicit_role_assignments": role("viewer"),
				"external_group_implicit_role_assignments":      group("editor")}, ssoAdmin), 200, "")
			apptest.Want(t, update(map[string]any{"external_connection_implicit_role_assignments": []any{}}, ssoAdmin),
				403, "unauthorized_action")
			list := externals(t, e, target)
			c := list[0].(map[string]any)
			if len(list) != 1 || c["display_name"] != "Via "+f.name ||
				c["external_connection_implicit_role_assignments"].([]any)[0].(map[string]any)["role_id"] != "viewer" ||
				c["external_group_implicit_role_assignments"].([]any)[0].(map[string]any)["role_id"] != "editor" {
				t.Fatalf("%s: stored: %v", f.name, list)
			}
			// With the permission a member may create with assignments.
			apptest.Want(t, e.Backend(http.MethodDelete, "/v1/b2b/sso/"+target+"/connections/"+connID, nil), 200, "")
			apptest.Want(t, create(with(map[string]any{"connection_implicit_role_assignments": role("viewer")}), rolesAdmin), 200, "")
			list = externals(t, e, target)
			apptest.Want(t, e.Backend(http.MethodDelete, "/v1/b2b/sso/"+target+"/connections/"+
				list[0].(map[string]any)["connection_id"].(string), nil), 200, "")
		}
	})
}
