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
		org, id, admins, scimAdmin, rolesAdmin := mappedConnection(t, e, "acme", "acme.test")
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

// Completing or cancelling a rotation decides which token the identity
// provider must use, and deleting a connection takes the roles it maps
// from every member holding them through it: on a connection with group
// role assignments, a member allowed only stytch.scim may do none of them,
// on either face, as they may not start a rotation. With
// stytch.organization's update.settings.implicit-roles they may, and
// without assignments stytch.scim suffices. A refused step changes
// nothing and records nothing.
func TestTokenStepsAndDeletionOfAConnectionMappingRolesNeedTheOrganizationPermission(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		setSCIMRoles(t, e)
		type face struct {
			name string
			// step runs rotate/<step> or, for "delete", the deletion, as the
			// member with session token.
			step func(org, id, step, token string) apptest.Resp
		}
		faces := []face{
			{"sdk", func(org, id, step, token string) apptest.Resp {
				if step == "delete" {
					return e.SDK(http.MethodDelete, "/b2b/scim/"+id, nil, token)
				}
				return e.SDK(http.MethodPost, "/b2b/scim/rotate/"+step, map[string]any{"connection_id": id}, token)
			}},
			{"backend", func(org, id, step, token string) apptest.Resp {
				path := "/v1/b2b/scim/" + org + "/connection/" + id
				if step == "delete" {
					return e.BackendAs(http.MethodDelete, path, nil, organization.MemberSessionHeader, token)
				}
				return e.BackendAs(http.MethodPost, path+"/rotate/"+step, nil, organization.MemberSessionHeader, token)
			}},
		}
		const field = "scim_group_implicit_role_assignments"
		for _, f := range faces {
			org, id, admins, scimAdmin, rolesAdmin := mappedConnection(t, e, "acme-"+f.name, f.name+".test")
			path := "/v1/b2b/scim/" + org + "/connection/" + id
			assign := func(list []any) {
				t.Helper()
				apptest.Want(t, e.Backend(http.MethodPut, path, map[string]any{field: list}), 200, "")
			}
			start := func() {
				t.Helper()
				apptest.Want(t, e.Backend(http.MethodPost, path+"/rotate/start", nil), 200, "")
			}
			// state is the connection as the project secret reads it:
			// whether it exists and whether it is rotating.
			state := func() (exists, rotating bool) {
				t.Helper()
				r := e.Backend(http.MethodGet, "/v1/b2b/scim/"+org+"/connection", nil)
				apptest.Want(t, r, 200, "")
				c, ok := r.Body["connection"].(map[string]any)
				return ok, ok && c["next_bearer_token_last_four"] != ""
			}
			events := func() int {
				t.Helper()
				return e.Count(`SELECT COUNT(*) FROM audit_events WHERE event_type = 'secret_retired'`)
			}
			refused := func(step string) {
				t.Helper()
				before := events()
				if r := f.step(org, id, step, scimAdmin); r.Status != 403 || r.ErrType() != "unauthorized_action" {
					t.Fatalf("%s: scim_admin's %s of a connection mapping roles: %d %s", f.name, step, r.Status, r.Raw)
				}
				if exists, rotating := state(); !exists || !rotating {
					t.Fatalf("%s: after scim_admin's refused %s: exists %v, rotating %v", f.name, step, exists, rotating)
				}
				if n := events(); n != before {
					t.Fatalf("%s: scim_admin's refused %s recorded %d events", f.name, step, n-before)
				}
			}

			assign([]any{map[string]any{"role_id": "stytch_admin", "group_id": admins}})
			start()
			for _, step := range []string{"complete", "cancel", "delete"} {
				refused(step)
			}
			apptest.Want(t, f.step(org, id, "complete", rolesAdmin), 200, "")
			start()
			apptest.Want(t, f.step(org, id, "cancel", rolesAdmin), 200, "")
			if _, rotating := state(); rotating {
				t.Fatalf("%s: roles_admin's cancel left the rotation", f.name)
			}

			// Without assignments, stytch.scim suffices.
			assign([]any{})
			start()
			apptest.Want(t, f.step(org, id, "complete", scimAdmin), 200, "")
			start()
			apptest.Want(t, f.step(org, id, "cancel", scimAdmin), 200, "")
			apptest.Want(t, f.step(org, id, "delete", scimAdmin), 200, "")
			if exists, _ := state(); exists {
				t.Fatalf("%s: scim_admin's deletion left the connection", f.name)
			}

			// roles_admin may delete one mapping roles.
			id, token, _ := connection(t, e, org, nil)
			r := scimDo(e, http.MethodPost, id, "/Groups", token, map[string]any{"displayName": "Admins"})
			path = "/v1/b2b/scim/" + org + "/connection/" + id
			assign([]any{map[string]any{"role_id": "stytch_admin", "group_id": r.Body["id"].(string)}})
			if r := f.step(org, id, "delete", scimAdmin); r.Status != 403 || r.ErrType() != "unauthorized_action" {
				t.Fatalf("%s: scim_admin's deletion of a connection mapping roles: %d %s", f.name, r.Status, r.Raw)
			}
			apptest.Want(t, f.step(org, id, "delete", rolesAdmin), 200, "")
			if exists, _ := state(); exists {
				t.Fatalf("%s: roles_admin's deletion left the connection", f.name)
			}
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

// mappedConnection creates organization name with a SCIM connection and
// its group "Admins", and logs in two members of domain: sam, allowed only
// stytch.scim (scim_admin), and rita, allowed the organization's
// implicit-roles settings (roles_admin); setSCIMRoles makes both roles.
// It returns the organization, the connection, the group and the two
// members' session tokens.
func mappedConnection(t *testing.T, e *apptest.Env, name, domain string) (org, id, admins, scimAdmin, rolesAdmin string) {
	t.Helper()
	org = e.CreateOrg(name, "NOT_ALLOWED", nil)
	id, token, _ := connection(t, e, org, nil)
	r := scimDo(e, http.MethodPost, id, "/Groups", token, map[string]any{"displayName": "Admins"})
	admins = r.Body["id"].(string)
	session := func(email, role string) string {
		apptest.Want(t, e.Backend(http.MethodPost, "/v1/b2b/organizations/"+org+"/members",
			map[string]any{"email_address": email, "roles": []string{role}}), 200, "")
		tok, _ := e.LoginByEmailOTP(org, email)
		return tok
	}
	return org, id, admins, session("sam@"+domain, "scim_admin"), session("rita@"+domain, "roles_admin")
}
