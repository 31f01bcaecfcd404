package scim_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/latchkey/latchkey/internal/apptest"
	"github.com/latchkey/latchkey/internal/organization"
	"github.com/latchkey/latchkey/internal/rbac"
)

// A member allowed stytch.scim update but not stytch.organization's
// update.settings.implicit-roles may edit the connection and send its
// stored group role assignments back with the edit (the Admin Portal saves
// whole objects), but not change them, on either face; with the
// organization permission they may. The rule is the one SSO connections
// follow (organization.ImplicitRolesGrant).
func TestGroupRolesChangeNeedsTheOrganizationPermission(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		setSCIMRoles(t, e)
		org := e.CreateOrg("acme", "NOT_ALLOWED", nil)
		id, token, _ := connection(t, e, org, nil)
		r := scimDo(e, http.MethodPost, id, "/Groups", token, map[string]any{"displayName": "Engineering"})
		eng := r.Body["id"].(string)
		r = scimDo(e, http.MethodPost, id, "/Groups", token, map[string]any{"displayName": "Sales"})
		sales := r.Body["id"].(string)
		session := func(email, role string) string {
			apptest.Want(t, e.Backend(http.MethodPost, "/v1/b2b/organizations/"+org+"/members",
				map[string]any{"email_address": email, "roles": []string{role}}), 200, "")
			tok, _ := e.LoginByEmailOTP(org, email)
			return tok
		}
		scimAdmin, rolesAdmin := session("sam@acme.test", "scim_admin"), session("rita@acme.test", "roles_admin")
		assign := func(pairs ...string) []any {
			out := []any{}
			for i := 0; i < len(pairs); i += 2 {
				out = append(out, map[string]any{"role_id": pairs[i], "group_id": pairs[i+1]})
			}
			return out
		}
		const field = "scim_group_implicit_role_assignments"
		apptest.Want(t, e.Backend(http.MethodPut, "/v1/b2b/scim/"+org+"/connection/"+id,
			map[string]any{field: assign("stytch_member", eng, "stytch_member", sales)}), 200, "")
		stored := func() []any {
			t.Helper()
			r := e.Backend(http.MethodGet, "/v1/b2b/scim/"+org+"/connection", nil)
			apptest.Want(t, r, 200, "")
			return r.Body["connection"].(map[string]any)[field].([]any)
		}

		for _, face := range []struct {
			name string
			put  func(body map[string]any, token string) apptest.Resp
		}{
			{"sdk", func(body map[string]any, token string) apptest.Resp {
				return e.SDK(http.MethodPut, "/b2b/scim/"+id, body, token)
			}},
			{"backend", func(body map[string]any, token string) apptest.Resp {
				return e.BackendAs(http.MethodPut, "/v1/b2b/scim/"+org+"/connection/"+id, body, organization.MemberSessionHeader, token)
			}},
		} {
			for _, list := range [][]any{assign("stytch_admin", eng), assign("stytch_member", eng), assign(),
				assign("stytch_member", eng, "stytch_member", sales, "stytch_admin", sales)} {
				if r := face.put(map[string]any{"display_name": "x", field: list}, scimAdmin); r.Status != 403 || r.ErrType() != "unauthorized_action" {
					t.Errorf("%s: scim_admin's change to %v: %d %s", face.name, list, r.Status, r.Raw)
				}
			}
			if got := stored(); len(got) != 2 {
				t.Fatalf("%s: a refused change stored %v", face.name, got)
			}
			// The stored list back, reordered, with a rename.
			apptest.Want(t, face.put(map[string]any{"display_name": "Okta " + face.name,
				field: assign("stytch_member", sales, "stytch_member", eng)}, scimAdmin), 200, "")
			apptest.Want(t, face.put(map[string]any{field: assign("stytch_admin", eng)}, rolesAdmin), 200, "")
			if got := stored(); len(got) != 1 || got[0].(map[string]any)["role_id"] != "stytch_admin" {
				t.Fatalf("%s: roles_admin's change: %v", face.name, got)
			}
			apptest.Want(t, face.put(map[string]any{field: assign("stytch_member", eng, "stytch_member", sales)}, rolesAdmin), 200, "")
		}
	})
}

// Starting a rotation hands out a bearer token, and the token of a
// connection that maps groups to roles lets its holder link their own
// member and join a group assigned stytch_admin. A member allowed only
// stytch.scim therefore may not start one while the connection has group
// role assignments, on either face; with stytch.organization's
// update.settings.implicit-roles they may, and without assignments
// stytch.scim suffices.
func TestRotationOfAConnectionMappingRolesNeedsTheOrganizationPermission(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		setSCIMRoles(t, e)
		org := e.CreateOrg("acme", "NOT_ALLOWED", nil)
		id, token, _ := connection(t, e, org, nil)
		r := scimDo(e, http.MethodPost, id, "/Groups", token, map[string]any{"displayName": "Admins"})
		admins := r.Body["id"].(string)
		session := func(email, role string) string {
			apptest.Want(t, e.Backend(http.MethodPost, "/v1/b2b/organizations/"+org+"/members",
				map[string]any{"email_address": email, "roles": []string{role}}), 200, "")
			tok, _ := e.LoginByEmailOTP(org, email)
			return tok
		}
		scimAdmin, rolesAdmin := session("sam@acme.test", "scim_admin"), session("rita@acme.test", "roles_admin")
		const field = "scim_group_implicit_role_assignments"
		assign := func(list []any) {
			t.Helper()
			apptest.Want(t, e.Backend(http.MethodPut, "/v1/b2b/scim/"+org+"/connection/"+id, map[string]any{field: list}), 200, "")
		}
		assign([]any{map[string]any{"role_id": "stytch_admin", "group_id": admins}})
		start := map[string]func(token string) apptest.Resp{
			"sdk": func(token string) apptest.Resp {
				return e.SDK(http.MethodPost, "/b2b/scim/rotate/start", map[string]any{"connection_id": id}, token)
			},
			"backend": func(token string) apptest.Resp {
				return e.BackendAs(http.MethodPost, "/v1/b2b/scim/"+org+"/connection/"+id+"/rotate/start", nil,
					organization.MemberSessionHeader, token)
			},
		}
		rotating := func() bool {
			t.Helper()
			r := e.Backend(http.MethodGet, "/v1/b2b/scim/"+org+"/connection", nil)
			apptest.Want(t, r, 200, "")
			return r.Body["connection"].(map[string]any)["next_bearer_token_last_four"] != ""
		}
		cancel := func() {
			t.Helper()
			apptest.Want(t, e.Backend(http.MethodPost, "/v1/b2b/scim/"+org+"/connection/"+id+"/rotate/cancel", nil), 200, "")
		}
		for face, start := range start {
			r := start(scimAdmin)
			if r.Status != 403 || r.ErrType() != "unauthorized_action" || strings.Contains(string(r.Raw), "next_bearer_token\"") {
				t.Fatalf("%s: scim_admin's rotation of a connection mapping roles: %d %s", face, r.Status, r.Raw)
			}
			if rotating() {
				t.Fatalf("%s: a refused rotation started", face)
			}
			r = start(rolesAdmin)
			apptest.Want(t, r, 200, "")
			if !strings.Contains(string(r.Raw), "next_bearer_token\"") {
				t.Fatalf("%s: roles_admin's rotation shows no token: %s", face, r.Raw)
			}
			cancel()
		}
		assign([]any{})
		for face, start := range start {
			if r := start(scimAdmin); r.Status != 200 || !strings.Contains(string(r.Raw), "next_bearer_token\"") {
				t.Fatalf("%s: scim_admin's rotation of a connection without assignments: %d %s", face, r.Status, r.Raw)
			}
			cancel()
		}
	})
}

// setSCIMRoles gives the project two custom roles: scim_admin, holding
// stytch.scim only, and roles_admin, holding it and stytch.organization's
// update.settings.implicit-roles.
func setSCIMRoles(t *testing.T, e *apptest.Env) {
	t.Helper()
	pol := rbac.Policy{Roles: []rbac.Role{
		{RoleID: "scim_admin", Description: "Manages SCIM", Permissions: []rbac.Permission{{ResourceID: "stytch.scim", Actions: []string{"*"}}}},
		{RoleID: "roles_admin", Description: "Manages SCIM and implicit roles", Permissions: []rbac.Permission{
			{ResourceID: "stytch.scim", Actions: []string{"*"}},
			{ResourceID: "stytch.organization", Actions: []string{"update.settings.implicit-roles"}}}},
	}}
	if _, err := e.App.RBAC.SetCustom(t.Context(), e.Project.Project.ID, pol); err != nil {
		t.Fatal(err)
	}
}
