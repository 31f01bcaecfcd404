package rbac_test

import (
	"encoding/json"
	"errors"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/latchkey/latchkey/internal/apptest"
	"github.com/latchkey/latchkey/internal/organization"
	"github.com/latchkey/latchkey/internal/rbac"
)

// A change of the project policy or of an organization's custom roles may
// not remove a role that is still assigned (to a member, in the email
// assignments, in a SAML or external connection's assignments): it is refused, listing
// the assignments, and nothing changes. SetCustomDropping removes the
// assignments with the role, in the same transaction.

// noEditor is docsPolicy without its editor role.
var noEditor = rbac.Policy{Resources: docsPolicy.Resources, Roles: docsPolicy.Roles[1:], Scopes: docsPolicy.Scopes}

// assignment is one way of assigning a role in an organization, with the
// way to read whether it is still there.
type assignment struct {
	name   string
	where  string // what the refusal names
	assign func(t *testing.T, e *apptest.Env, org, role string)
	holds  func(t *testing.T, e *apptest.Env, org, role string) bool
}

var assignments = []assignment{
	{name: "member", where: "member member-", assign: func(t *testing.T, e *apptest.Env, org, role string) {
		apptest.Want(t, e.Backend(http.MethodPost, "/v1/b2b/organizations/"+org+"/members",
			map[string]any{"email_address": "eve@acme.test", "roles": []string{role}}), 200, "")
	}, holds: func(t *testing.T, e *apptest.Env, org, role string) bool {
		r := e.Backend(http.MethodGet, "/v1/b2b/organizations/"+org+"/member?email_address=eve@acme.test", nil)
		apptest.Want(t, r, 200, "")
		return roleSources(t, r.Body["member"].(map[string]any))[role] != nil
	}},
	{name: "email", where: "rbac_email_implicit_role_assignments (acme.test)", assign: func(t *testing.T, e *apptest.Env, org, role string) {
		apptest.Want(t, e.Backend(http.MethodPut, "/v1/b2b/organizations/"+org, map[string]any{"rbac_email_implicit_role_assignments": []any{
			map[string]any{"role_id": role, "domain": "acme.test"}}}), 200, "")
	}, holds: func(t *testing.T, e *apptest.Env, org, role string) bool {
		o, err := e.App.Orgs.Get(t.Context(), e.Project.Project.ID, org)
		if err != nil {
			t.Fatal(err)
		}
		return slices.ContainsFunc(o.RBACEmailImplicitRoleAssignments, func(a organization.RoleAssignment) bool { return a.RoleID == role })
	}},
	{name: "saml", where: "saml_group_implicit_role_assignments, group staff", assign: func(t *testing.T, e *apptest.Env, org, role string) {
		r := e.Backend(http.MethodPost, "/v1/b2b/sso/saml/"+org, map[string]any{"display_name": "Acme Okta", "identity_provider": "okta"})
		apptest.Want(t, r, 200, "")
		conn := r.Body["connection"].(map[string]any)["connection_id"].(string)
		apptest.Want(t, e.Backend(http.MethodPut, "/v1/b2b/sso/saml/"+org+"/connections/"+conn, map[string]any{
			"saml_connection_implicit_role_assignments": []any{map[string]any{"role_id": role}},
			"saml_group_implicit_role_assignments":      []any{map[string]any{"role_id": role, "group": "staff"}}}), 200, "")
	}, holds: func(t *testing.T, e *apptest.Env, org, role string) bool {
		r := e.Backend(http.MethodGet, "/v1/b2b/sso/"+org, nil)
		apptest.Want(t, r, 200, "")
		conn := r.Body["saml_connections"].([]any)[0].(map[string]any)
		both, _ := json.Marshal([]any{conn["saml_connection_implicit_role_assignments"], conn["saml_group_implicit_role_assignments"]})
		return strings.Count(string(both), `"`+role+`"`) == 2
	}},
	{name: "external", where: "(external_connection_implicit_role_assignments)", assign: func(t *testing.T, e *apptest.Env, org, role string) {
		// Another organization's SAML connection, used by org with its own assignment.
		source := e.CreateOrg("source", "ALL_ALLOWED", nil)
		r := e.Backend(http.MethodPost, "/v1/b2b/sso/saml/"+source, map[string]any{"display_name": "Source Okta", "identity_provider": "okta"})
		apptest.Want(t, r, 200, "")
		apptest.Want(t, e.Backend(http.MethodPost, "/v1/b2b/sso/external/"+org, map[string]any{
			"external_organization_id": source, "external_connection_id": r.Body["connection"].(map[string]any)["connection_id"],
			"connection_implicit_role_assignments": []any{map[string]any{"role_id": role}}}), 200, "")
	}, holds: func(t *testing.T, e *apptest.Env, org, role string) bool {
		r := e.Backend(http.MethodGet, "/v1/b2b/sso/"+org, nil)
		apptest.Want(t, r, 200, "")
		conn := r.Body["external_connections"].([]any)[0].(map[string]any)
		roles, _ := json.Marshal(conn["external_connection_implicit_role_assignments"])
		return strings.Contains(string(roles), `"`+role+`"`)
	}},
}

// A policy change removing a role assigned in any of the ways is refused
// with the assignments listed; the policy and the assignment stay.
func TestPolicyChangeRemovingAnAssignedRoleIsRefused(t *testing.T) {
	for _, a := range assignments {
		t.Run(a.name, func(t *testing.T) {
			apptest.Each(t, func(t *testing.T, e *apptest.Env) {
				setPolicy(t, e, docsPolicy)
				acme := e.CreateOrg("acme", "ALL_ALLOWED", nil)
				a.assign(t, e, acme, "editor")
				_, err := e.App.RBAC.SetCustom(t.Context(), e.Project.Project.ID, noEditor)
				inUse, ok := errors.AsType[*rbac.RolesInUseError](err)
				if !ok || len(inUse.Refs) == 0 || !strings.Contains(err.Error(), a.where) || !strings.Contains(err.Error(), acme) {
					t.Fatalf("policy change: %v, want refused naming %q", err, a.where)
				}
				wantPolicyRole(t, e, "editor", true)
				if !a.holds(t, e, acme, "editor") {
					t.Fatal("the assignment went with the refused change")
				}
			})
		})
	}
}

// An organization's custom-roles change removing one of its roles
// assigned in any of the ways is refused (invalid_request on org_policy,
// naming the assignment); the role and the assignment stay.
func TestOrganizationRolesChangeRemovingAnAssignedRoleIsRefused(t *testing.T) {
	for _, a := range assignments {
		t.Run(a.name, func(t *testing.T) {
			apptest.Each(t, func(t *testing.T, e *apptest.Env) {
				setPolicy(t, e, docsPolicy)
				acme := e.CreateOrg("acme", "ALL_ALLOWED", nil)
				path := "/v1/b2b/rbac/organizations/" + acme
				apptest.Want(t, e.Backend(http.MethodPut, path, map[string]any{"org_policy": map[string]any{"roles": reviewer}}), 200, "")
				a.assign(t, e, acme, "doc-reviewer")
				r := e.Backend(http.MethodPut, path, map[string]any{"org_policy": map[string]any{"roles": []any{}}})
				apptest.Want(t, r, 400, "invalid_request")
				if msg, _ := r.Body["error_message"].(string); !strings.Contains(msg, "doc-reviewer") || !strings.Contains(msg, a.where) {
					t.Fatalf("refusal does not say where the role is assigned: %s", r.Raw)
				}
				r = e.Backend(http.MethodGet, path, nil)
				if !strings.Contains(string(r.Raw), "doc-reviewer") || !a.holds(t, e, acme, "doc-reviewer") {
					t.Fatalf("the refused change removed something: %s", r.Raw)
				}
			})
		})
	}
}

// SetCustomDropping removes every assignment of the removed role, and
// only those, with the policy; a logged-in member's session loses the
// role at once (the change feed reaches the cached member). The built-in
// roles are never removed, even by a policy that no longer lists them.
func TestPolicyChangeDroppingAssignments(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		custom := docsPolicy
		custom.Roles = append(slices.Clone(docsPolicy.Roles), rbac.Role{RoleID: rbac.AdminRole,
			Permissions: []rbac.Permission{{ResourceID: "documents", Actions: []string{"read"}}}})
		setPolicy(t, e, custom)
		acme := e.CreateOrg("acme", "ALL_ALLOWED", nil)
		for _, a := range assignments {
			a.assign(t, e, acme, "editor")
		}
		apptest.Want(t, e.Backend(http.MethodPut, "/v1/b2b/organizations/"+acme, map[string]any{"rbac_email_implicit_role_assignments": []any{
			map[string]any{"role_id": "editor", "domain": "acme.test"}, map[string]any{"role_id": "stytch_admin", "domain": "acme.test"}}}), 200, "")
		token, _ := e.LoginByEmailOTP(acme, "eve@acme.test")
		r := e.Backend(http.MethodGet, "/v1/b2b/organizations/"+acme+"/member?email_address=eve@acme.test", nil)
		apptest.Want(t, r, 200, "")
		eve := r.Body["member_id"].(string)
		apptest.Want(t, e.Backend(http.MethodPut, memberPath(acme, eve), map[string]any{"roles": []string{"editor", "stytch_admin"}}), 200, "")
		if got := sessionRoles(t, e, token); !slices.Contains(got, "editor") {
			t.Fatalf("session roles before: %v", got)
		}

		// noEditor lists no stytch_admin either: its extra permission goes, the role stays.
		_, dropped, err := e.App.RBAC.SetCustomDropping(t.Context(), e.Project.Project.ID, noEditor)
		if err != nil {
			t.Fatal(err)
		}
		for _, ref := range dropped {
			if ref.RoleID != "editor" || ref.OrganizationID != acme {
				t.Errorf("dropped %v", ref)
			}
		}
		if len(dropped) != 5 { // member, email, SAML connection and group, external connection
			t.Errorf("dropped %v, want the 5 assignments of editor", dropped)
		}
		wantPolicyRole(t, e, "editor", false)
		wantPolicyRole(t, e, rbac.AdminRole, true)
		for _, a := range assignments {
			if a.holds(t, e, acme, "editor") {
				t.Errorf("%s: editor still assigned", a.name)
			}
		}
		if got := sessionRoles(t, e, token); slices.Contains(got, "editor") || !slices.Contains(got, rbac.AdminRole) {
			t.Fatalf("session roles after: %v", got)
		}
		o, err := e.App.Orgs.Get(t.Context(), e.Project.Project.ID, acme)
		if err != nil || len(o.RBACEmailImplicitRoleAssignments) != 1 || o.RBACEmailImplicitRoleAssignments[0].RoleID != rbac.AdminRole {
			t.Fatalf("email assignments after: %v %v", o.RBACEmailImplicitRoleAssignments, err)
		}
	})
}

// wantPolicyRole fails unless the project's effective policy does (or
// does not) define role.
func wantPolicyRole(t *testing.T, e *apptest.Env, role string, want bool) {
	t.Helper()
	p, err := e.App.RBAC.Policy(t.Context(), e.Project.Project.ID)
	if err != nil {
		t.Fatal(err)
	}
	if p.HasRole(role, nil) != want {
		t.Fatalf("policy defines %s: %v, want %v", role, !want, want)
	}
}
