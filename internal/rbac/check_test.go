package rbac_test

import (
	"context"
	"net/http"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/latchkey/latchkey/internal/apptest"
	"github.com/latchkey/latchkey/internal/organization"
	"github.com/latchkey/latchkey/internal/rbac"
)

// docsPolicy is a custom part: a documents resource, an editor role, and
// read access for every member.
var docsPolicy = rbac.Policy{
	Resources: []rbac.Resource{{ResourceID: "documents", Description: "Shared documents", Actions: []string{"read", "write"}}},
	Roles: []rbac.Role{
		{RoleID: "editor", Description: "Edits documents", Permissions: []rbac.Permission{{ResourceID: "documents", Actions: []string{"*"}}}},
		{RoleID: rbac.MemberRole, Permissions: []rbac.Permission{{ResourceID: "documents", Actions: []string{"read"}}}},
	},
	Scopes: []rbac.Scope{{Scope: "read:documents", Description: "Read your documents",
		Permissions: []rbac.Permission{{ResourceID: "documents", Actions: []string{"read"}}}}},
}

func setPolicy(t *testing.T, e *apptest.Env, p rbac.Policy) {
	t.Helper()
	if _, err := e.App.RBAC.SetCustom(context.Background(), e.Project.Project.ID, p); err != nil {
		t.Fatalf("set policy: %v", err)
	}
}

// check calls the backend sessions/authenticate with an authorization check.
func check(e *apptest.Env, token, org, resource, action string) apptest.Resp {
	return e.Backend(http.MethodPost, "/v1/b2b/sessions/authenticate", map[string]any{"session_token": token,
		"authorization_check": map[string]any{"organization_id": org, "resource_id": resource, "action": action}})
}

func granting(r apptest.Resp) []string {
	v, _ := r.Body["verdict"].(map[string]any)
	var out []string
	for _, g := range v["granting_roles"].([]any) {
		out = append(out, g.(string))
	}
	return out
}

// The policy route and the bootstrap serve the built-in part merged with
// the custom part.
func TestPolicyIsServed(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		r := e.Backend(http.MethodGet, "/v1/b2b/rbac/policy", nil)
		apptest.Want(t, r, 200, "")
		pol := r.Body["policy"].(map[string]any)
		if len(pol["roles"].([]any)) != 2 || len(pol["resources"].([]any)) != 5 || len(pol["scopes"].([]any)) != 0 {
			t.Fatalf("built-in policy: %s", r.Raw)
		}
		setPolicy(t, e, docsPolicy)
		r = e.Backend(http.MethodGet, "/v1/b2b/rbac/policy", nil)
		pol = r.Body["policy"].(map[string]any)
		if len(pol["roles"].([]any)) != 3 || len(pol["resources"].([]any)) != 6 || len(pol["scopes"].([]any)) != 1 {
			t.Fatalf("custom policy: %s", r.Raw)
		}
		b := e.SDK(http.MethodGet, "/projects/bootstrap/"+e.Project.PublicToken, nil, "")
		bp := b.Data()["rbac_policy"].(map[string]any)
		roles := bp["roles"].([]any)
		member := roles[0].(map[string]any)
		if member["role_id"] != "stytch_member" || len(member["permissions"].([]any)) != 2 || len(bp["resources"].([]any)) != 6 {
			t.Fatalf("bootstrap rbac_policy: %s", b.Raw)
		}
		// Another project keeps the built-in policy only.
		other := e.NewProject("Other")
		b = e.SDK(http.MethodGet, "/projects/bootstrap/"+other.PublicToken, nil, "")
		if len(b.Data()["rbac_policy"].(map[string]any)["roles"].([]any)) != 2 {
			t.Fatalf("other project's policy: %s", b.Raw)
		}
	})
}

// A refused authorization_check changes nothing the request asked for: the
// check runs before sessions/authenticate writes the extension and the
// custom claims, on both faces. The same request with a passing check
// does write them.
func TestRefusedAuthorizationCheckWritesNothing(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		setPolicy(t, e, docsPolicy)
		acme := e.CreateOrg("acme", "ALL_ALLOWED", nil)
		beta := e.CreateOrg("beta", "ALL_ALLOWED", nil)
		token, _ := e.LoginByEmailOTP(acme, "bob@acme.test")
		stored := func() (expires any, claims any) {
			t.Helper()
			r := e.Backend(http.MethodPost, "/v1/b2b/sessions/authenticate", map[string]any{"session_token": token})
			apptest.Want(t, r, 200, "")
			ms := r.Body["member_session"].(map[string]any)
			return ms["expires_at"], ms["custom_claims"]
		}
		asking := func(org, action string) map[string]any {
			return map[string]any{"session_token": token, "session_duration_minutes": 600,
				"session_custom_claims": map[string]any{"plan": "pro"},
				"authorization_check":   map[string]any{"organization_id": org, "resource_id": "documents", "action": action}}
		}
		expires, claims := stored()
		for _, c := range []struct {
			org, action, refusal string
		}{{acme, "write", "session_authorization_error"}, {beta, "read", "session_authorization_tenancy_error"}} {
			apptest.Want(t, e.Backend(http.MethodPost, "/v1/b2b/sessions/authenticate", asking(c.org, c.action)), 403, c.refusal)
			apptest.Want(t, e.SDK(http.MethodPost, "/b2b/sessions/authenticate", map[string]any{"session_duration_minutes": 600,
				"authorization_check": map[string]any{"organization_id": c.org, "resource_id": "documents", "action": c.action}}, token),
				403, c.refusal)
			if gotExp, gotClaims := stored(); !reflect.DeepEqual(gotExp, expires) || !reflect.DeepEqual(gotClaims, claims) {
				t.Fatalf("after %s: expires_at %v, custom_claims %v; want %v, %v", c.refusal, gotExp, gotClaims, expires, claims)
			}
		}
		apptest.Want(t, e.Backend(http.MethodPost, "/v1/b2b/sessions/authenticate", asking(acme, "read")), 200, "")
		if gotExp, gotClaims := stored(); reflect.DeepEqual(gotExp, expires) || !reflect.DeepEqual(gotClaims, map[string]any{"plan": "pro"}) {
			t.Fatalf("a passing check did not write: expires_at %v, custom_claims %v", gotExp, gotClaims)
		}
	})
}

// authorization_check on sessions/authenticate: a verdict naming the
// granting roles, session_authorization_error without a matching
// permission, and session_authorization_tenancy_error for another
// organization, on both faces (the SDKs' types for these refusals; other
// routes' refusals keep unauthorized_action and tenancy_mismatch).
func TestAuthorizationCheck(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		setPolicy(t, e, docsPolicy)
		acme := e.CreateOrg("acme", "ALL_ALLOWED", nil)
		beta := e.CreateOrg("beta", "ALL_ALLOWED", nil)
		member, _ := e.LoginByEmailOTP(acme, "bob@acme.test")
		adminID := e.CreateMember(acme, "ada@acme.test")
		apptest.Want(t, e.Backend(http.MethodPut, "/v1/b2b/organizations/"+acme+"/members/"+adminID,
			map[string]any{"roles": []string{"stytch_admin"}}), 200, "")
		admin, adminJWT := e.LoginByEmailOTP(acme, "ada@acme.test")

		r := check(e, member, acme, "documents", "read")
		apptest.Want(t, r, 200, "")
		if v := r.Body["verdict"].(map[string]any); v["authorized"] != true || !slices.Equal(granting(r), []string{"stytch_member"}) {
			t.Fatalf("member reads documents: %s", r.Raw)
		}
		if r.Body["member_session"] == nil || r.Body["session_jwt"] == "" {
			t.Fatalf("the session answer is still there: %s", r.Raw)
		}
		apptest.Want(t, check(e, member, acme, "documents", "write"), 403, "session_authorization_error")
		apptest.Want(t, check(e, member, acme, "stytch.member", "delete"), 403, "session_authorization_error")
		apptest.Want(t, check(e, member, acme, "stytch.self", "update.info.name"), 200, "")
		apptest.Want(t, check(e, member, acme, "nonexistent", "read"), 403, "session_authorization_error")
		r = check(e, admin, acme, "stytch.member", "delete")
		if r.Status != 200 || !slices.Equal(granting(r), []string{"stytch_admin"}) {
			t.Fatalf("admin deletes members: %s", r.Raw)
		}
		// The organization must be the session's own, whatever the roles.
		apptest.Want(t, check(e, admin, beta, "stytch.member", "delete"), 403, "session_authorization_tenancy_error")
		r = check(e, member, "organization-test-nope", "documents", "read")
		apptest.Want(t, r, 403, "session_authorization_tenancy_error")
		if msg, _ := r.Body["error_message"].(string); !strings.Contains(msg, acme) || !strings.Contains(msg, "organization-test-nope") {
			t.Fatalf("the tenancy refusal names both organizations: %s", r.Raw)
		}
		// The same member refused elsewhere keeps the routes' own types.
		apptest.Want(t, e.SDK(http.MethodPut, "/b2b/organizations/me", map[string]any{"organization_name": "Bob's"}, member),
			403, "unauthorized_action")
		apptest.Want(t, e.BackendAs(http.MethodPut, "/v1/b2b/organizations/"+beta, map[string]any{"organization_name": "Ada's"},
			organization.MemberSessionHeader, admin), 403, "tenancy_mismatch")
		// Every field is required.
		r = e.Backend(http.MethodPost, "/v1/b2b/sessions/authenticate", map[string]any{"session_token": member,
			"authorization_check": map[string]any{"organization_id": acme, "resource_id": "documents"}})
		apptest.Want(t, r, 400, "invalid_request")
		// By JWT as well.
		r = e.Backend(http.MethodPost, "/v1/b2b/sessions/authenticate", map[string]any{"session_jwt": adminJWT,
			"authorization_check": map[string]any{"organization_id": acme, "resource_id": "documents", "action": "read"}})
		apptest.Want(t, r, 200, "")
		// Without a check the answer has no verdict.
		r = e.Backend(http.MethodPost, "/v1/b2b/sessions/authenticate", map[string]any{"session_token": member})
		if _, ok := r.Body["verdict"]; ok || r.Status != 200 {
			t.Fatalf("no check, no verdict: %s", r.Raw)
		}
		// The SDK face takes the same check.
		r = e.SDK(http.MethodPost, "/b2b/sessions/authenticate", map[string]any{
			"authorization_check": map[string]any{"organization_id": acme, "resource_id": "documents", "action": "read"}}, member)
		if r.Status != 200 || r.Data()["verdict"].(map[string]any)["authorized"] != true {
			t.Fatalf("SDK check: %s", r.Raw)
		}
		apptest.Want(t, e.SDK(http.MethodPost, "/b2b/sessions/authenticate", map[string]any{
			"authorization_check": map[string]any{"organization_id": acme, "resource_id": "documents", "action": "write"}}, member), 403, "session_authorization_error")
		apptest.Want(t, e.SDK(http.MethodPost, "/b2b/sessions/authenticate", map[string]any{
			"authorization_check": map[string]any{"organization_id": beta, "resource_id": "documents", "action": "read"}}, member),
			403, "session_authorization_tenancy_error")
		// A policy change applies to the very next check.
		setPolicy(t, e, rbac.Policy{Resources: docsPolicy.Resources})
		apptest.Want(t, check(e, member, acme, "documents", "read"), 403, "session_authorization_error")
	})
}

// Organization custom roles: read and replaced through the organization
// policy routes, validated against the project policy.
func TestOrgPolicy(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		setPolicy(t, e, docsPolicy)
		acme := e.CreateOrg("acme", "ALL_ALLOWED", nil)
		path := "/v1/b2b/rbac/organizations/" + acme
		r := e.Backend(http.MethodGet, path, nil)
		if r.Status != 200 || len(r.Body["org_policy"].(map[string]any)["roles"].([]any)) != 0 {
			t.Fatalf("empty org policy: %s", r.Raw)
		}
		reviewer := map[string]any{"role_id": "reviewer", "description": "Reviews", "permissions": []any{
			map[string]any{"resource_id": "documents", "actions": []string{"read"}}}}
		r = e.Backend(http.MethodPut, path, map[string]any{"org_policy": map[string]any{"roles": []any{reviewer}}})
		apptest.Want(t, r, 200, "")
		r = e.Backend(http.MethodGet, path, nil)
		roles := r.Body["org_policy"].(map[string]any)["roles"].([]any)
		if len(roles) != 1 || roles[0].(map[string]any)["role_id"] != "reviewer" {
			t.Fatalf("org policy: %s", r.Raw)
		}
		o := e.Backend(http.MethodGet, "/v1/b2b/organizations/"+acme, nil).Body["organization"].(map[string]any)
		if len(o["custom_roles"].([]any)) != 1 {
			t.Fatalf("organization custom_roles: %v", o["custom_roles"])
		}
		for name, body := range map[string]any{
			"missing org_policy": map[string]any{},
			"project role id":    map[string]any{"org_policy": map[string]any{"roles": []any{map[string]any{"role_id": "editor"}}}},
			"unknown resource":   map[string]any{"org_policy": map[string]any{"roles": []any{map[string]any{"role_id": "x", "permissions": []any{map[string]any{"resource_id": "files", "actions": []string{"read"}}}}}}},
			"built-in role":      map[string]any{"org_policy": map[string]any{"roles": []any{map[string]any{"role_id": "stytch_admin"}}}},
		} {
			if r := e.Backend(http.MethodPut, path, body); r.Status != 400 || r.ErrType() != "invalid_request" {
				t.Errorf("%s: %d %s", name, r.Status, r.Raw)
			}
		}
		apptest.Want(t, e.Backend(http.MethodGet, "/v1/b2b/rbac/organizations/organization-test-nope", nil), 404, "organization_not_found")
		// A project policy that would orphan the organization's role is refused whole.
		if _, err := e.App.RBAC.SetCustom(context.Background(), e.Project.Project.ID, rbac.Policy{}); err == nil {
			t.Fatal("a policy without the documents resource was accepted while reviewer uses it")
		}
		if r := e.Backend(http.MethodGet, "/v1/b2b/rbac/policy", nil); len(r.Body["policy"].(map[string]any)["roles"].([]any)) != 3 {
			t.Fatalf("refused policy changed something: %s", r.Raw)
		}
	})
}
