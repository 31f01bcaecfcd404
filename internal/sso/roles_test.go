package sso_test

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"testing"

	"github.com/latchkey/latchkey/internal/apptest"
	"github.com/latchkey/latchkey/internal/rbac"
)

var docsPolicy = rbac.Policy{
	Resources: []rbac.Resource{{ResourceID: "documents", Description: "Shared documents", Actions: []string{"read", "write"}}},
	Roles: []rbac.Role{
		{RoleID: "viewer", Description: "Reads documents", Permissions: []rbac.Permission{{ResourceID: "documents", Actions: []string{"read"}}}},
		{RoleID: "editor", Description: "Edits documents", Permissions: []rbac.Permission{{ResourceID: "documents", Actions: []string{"*"}}}},
	},
}

// roleSources maps each role of a member answer to its sources' types and
// details.
func roleSources(m map[string]any) map[string][]map[string]any {
	out := map[string][]map[string]any{}
	for _, r := range m["roles"].([]any) {
		r := r.(map[string]any)
		for _, s := range r["sources"].([]any) {
			s := s.(map[string]any)
			d, _ := s["details"].(map[string]any)
			entry := map[string]any{"type": s["type"]}
			for k, v := range d {
				entry[k] = v
			}
			out[r["role_id"].(string)] = append(out[r["role_id"].(string)], entry)
		}
	}
	return out
}

func checkAccess(e *apptest.Env, token, org, action string) apptest.Resp {
	return e.Backend(http.MethodPost, "/v1/b2b/sessions/authenticate", map[string]any{"session_token": token,
		"authorization_check": map[string]any{"organization_id": org, "resource_id": "documents", "action": action}})
}

func searchRole(t *testing.T, e *apptest.Env, org string, roles ...string) []string {
	t.Helper()
	r := e.Backend(http.MethodPost, "/v1/b2b/organizations/members/search", map[string]any{"organization_ids": []string{org},
		"query": map[string]any{"operator": "AND", "operands": []any{map[string]any{"filter_name": "member_roles", "filter_value": roles}}}})
	apptest.Want(t, r, 200, "")
	var out []string
	for _, m := range r.Body["members"].([]any) {
		out = append(out, m.(map[string]any)["email_address"].(string))
	}
	return out
}

// samlLogin walks a login through the crewjam IdP as user with groups and
// returns the backend authenticate answer.
func (s *samlEnv) loginWithGroups(email, nameID string, groups ...string) apptest.Resp {
	s.T.Helper()
	s.idp.login(email, nameID, "", "")
	s.idp.mu.Lock()
	s.idp.user.Groups = groups
	s.idp.mu.Unlock()
	token := tokenFrom(s.T, s.post(s.idp.follow(s.start(nil))))
	r := s.Backend(http.MethodPost, "/v1/b2b/sso/authenticate", map[string]any{"sso_token": token, "session_duration_minutes": 60})
	apptest.Want(s.T, r, 200, "")
	return r
}

// SAML connection and group implicit roles (issue 10): a member registered
// with the connection holds its roles, reported as sso_connection and
// sso_connection_group with the connection (and group); a session carries
// them only when it was authenticated through that connection; the members
// search's member_roles filter finds them; removing an assignment revokes
// it at once.
func TestSAMLImplicitRoles(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		if _, err := e.App.RBAC.SetCustom(context.Background(), e.Project.Project.ID, docsPolicy); err != nil {
			t.Fatal(err)
		}
		s := newSAMLEnv(t, e, nil)
		path := "/v1/b2b/sso/saml/" + s.orgID + "/connections/" + s.connID
		apptest.Want(t, e.Backend(http.MethodPut, path, map[string]any{"saml_connection_implicit_role_assignments": []any{
			map[string]any{"role_id": "ghost"}}}), 400, "invalid_request")
		apptest.Want(t, e.Backend(http.MethodPut, path, map[string]any{"saml_group_implicit_role_assignments": []any{
			map[string]any{"role_id": "editor", "group": ""}}}), 400, "invalid_request")
		r := e.Backend(http.MethodPut, path, map[string]any{
			"attribute_mapping":                         map[string]any{"email": "mail", "groups": "eduPersonAffiliation"},
			"saml_connection_implicit_role_assignments": []any{map[string]any{"role_id": "viewer"}},
			"saml_group_implicit_role_assignments": []any{map[string]any{"role_id": "editor", "group": "writers"},
				map[string]any{"role_id": "stytch_admin", "group": "admins"}}})
		apptest.Want(t, r, 200, "")

		r = s.loginWithGroups("ada@acme.test", "okta-ada", "writers", "readers")
		m := r.Body["member"].(map[string]any)
		got := roleSources(m)
		if len(got["viewer"]) != 1 || got["viewer"][0]["type"] != "sso_connection" || got["viewer"][0]["connection_id"] != s.connID ||
			len(got["editor"]) != 1 || got["editor"][0]["type"] != "sso_connection_group" || got["editor"][0]["group"] != "writers" ||
			got["editor"][0]["connection_id"] != s.connID || got["stytch_admin"] != nil || m["is_admin"] != false {
			t.Fatalf("member roles: %v", got)
		}
		ms := r.Body["member_session"].(map[string]any)
		if roles := ms["roles"].([]any); !slices.Equal(roles, []any{"stytch_member", "viewer", "editor"}) {
			t.Fatalf("session roles: %v", roles)
		}
		factor := ms["authentication_factors"].([]any)[0].(map[string]any)
		if f, _ := factor["saml_sso_factor"].(map[string]any); f == nil || f["provider_id"] != s.connID {
			t.Fatalf("factor: %v", factor)
		}
		token := r.Body["session_token"].(string)
		apptest.Want(t, checkAccess(e, token, s.orgID, "write"), 200, "")

		// Another method's session does not carry the connection's roles.
		emailToken, _ := e.LoginByEmailOTP(s.orgID, "ada@acme.test")
		apptest.Want(t, checkAccess(e, emailToken, s.orgID, "read"), 403, "session_authorization_error")

		// The search finds holders through the connection and the group.
		if got := searchRole(t, e, s.orgID, "editor"); !slices.Equal(got, []string{"ada@acme.test"}) {
			t.Fatalf("search editor: %v", got)
		}
		if got := searchRole(t, e, s.orgID, "viewer"); !slices.Equal(got, []string{"ada@acme.test"}) {
			t.Fatalf("search viewer: %v", got)
		}
		if got := searchRole(t, e, s.orgID, "stytch_admin"); len(got) != 0 {
			t.Fatalf("search admin: %v", got)
		}
		// Among as many roles as a search takes, found once.
		many := make([]string, 999)
		for i := range many {
			many[i] = fmt.Sprintf("role-%d", i)
		}
		if got := searchRole(t, e, s.orgID, append(many, "editor", "viewer")[1:]...); !slices.Equal(got, []string{"ada@acme.test"}) {
			t.Fatalf("search among 1000 roles: %v", got)
		}

		// Removing the group assignment revokes it for the live session.
		apptest.Want(t, e.Backend(http.MethodPut, path, map[string]any{"saml_group_implicit_role_assignments": []any{}}), 200, "")
		apptest.Want(t, checkAccess(e, token, s.orgID, "write"), 403, "session_authorization_error")
		apptest.Want(t, checkAccess(e, token, s.orgID, "read"), 200, "")
		if got := searchRole(t, e, s.orgID, "editor"); len(got) != 0 {
			t.Fatalf("search editor after removal: %v", got)
		}

		// Groups follow the latest login: now in admins.
		apptest.Want(t, e.Backend(http.MethodPut, path, map[string]any{"saml_group_implicit_role_assignments": []any{
			map[string]any{"role_id": "stytch_admin", "group": "admins"}}}), 200, "")
		r = s.loginWithGroups("ada@acme.test", "okta-ada", "admins")
		if got := roleSources(r.Body["member"].(map[string]any)); got["stytch_admin"] == nil || got["editor"] != nil ||
			r.Body["member"].(map[string]any)["is_admin"] != true {
			t.Fatalf("after the admins login: %v", got)
		}
	})
}
