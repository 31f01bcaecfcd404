package rbac_test

import (
	"errors"
	"net/http"
	"testing"

	"github.com/latchkey/latchkey/internal/apptest"
	"github.com/latchkey/latchkey/internal/organization"
	"github.com/latchkey/latchkey/internal/rbac"
	"github.com/latchkey/latchkey/internal/store"
	"github.com/latchkey/latchkey/internal/store/storetest"
)

// A project policy change checks every organization's custom roles
// against the new policy; an organization's roles change checks the new
// roles against the current policy. Run at once, each must see the
// other's result, or both commit and leave an organization role on a
// resource the policy no longer defines. In each test the first change
// (the real code, through export_test.go's hooks) is held open while the
// second runs.

// reviewer is an organization role on docsPolicy's documents resource.
var reviewer = []rbac.Role{{RoleID: "doc-reviewer", Description: "Reviews documents",
	Permissions: []rbac.Permission{{ResourceID: "documents", Actions: []string{"read"}}}}}

// noDocuments is docsPolicy without its documents resource.
var noDocuments = rbac.Policy{Roles: []rbac.Role{}, Resources: []rbac.Resource{}, Scopes: []rbac.Scope{}}

// policyRaceEnv is a project on docsPolicy with one organization.
func policyRaceEnv(t *testing.T) (*apptest.Env, string) {
	t.Helper()
	e := apptest.New(t, apptest.Postgres(t), nil)
	setPolicy(t, e, docsPolicy)
	return e, e.CreateOrg("acme", "ALL_ALLOWED", nil)
}

// wantRolesValid fails unless the organization's custom roles are valid
// under the project's stored policy.
func wantRolesValid(t *testing.T, e *apptest.Env, orgID string) {
	t.Helper()
	pol, err := e.App.RBAC.Policy(t.Context(), e.Project.Project.ID)
	if err != nil {
		t.Fatal(err)
	}
	o, err := e.App.Orgs.Get(t.Context(), e.Project.Project.ID, orgID)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := rbac.ValidateOrgRoles(o.CustomRoles, pol); err != nil {
		t.Fatalf("organization roles %v under policy %v: %v", o.CustomRoles, pol.Resources, err)
	}
}

// An organization's roles change held open while the policy drops the
// resource its new role names: the policy change sees the role and is
// refused.
func TestPolicyChangeDuringAnOrganizationRolesChange(t *testing.T) {
	t.Parallel()
	e, acme := policyRaceEnv(t)
	ctx, projectID := t.Context(), e.Project.Project.ID
	setRoles := func(q store.Querier) error { return e.App.RBAC.SetOrgRolesIn(ctx, q, projectID, acme, reviewer) }
	rolesErr, policyErr := storetest.Overlap(t, e.App.DB, setRoles, func() error {
		_, err := e.App.RBAC.SetCustom(ctx, projectID, noDocuments)
		return err
	})
	if rolesErr != nil || policyErr == nil {
		t.Fatalf("roles change: %v; policy change: %v; want the policy change refused", rolesErr, policyErr)
	}
	wantRolesValid(t, e, acme)
}

// A policy change dropping a resource held open while an organization's
// roles change adds a role on it: the roles change sees the new policy
// and is refused.
func TestOrganizationRolesChangeDuringAPolicyChange(t *testing.T) {
	t.Parallel()
	e, acme := policyRaceEnv(t)
	ctx, projectID := t.Context(), e.Project.Project.ID
	setPolicy := func(q store.Querier) error { return e.App.RBAC.SetCustomIn(ctx, q, projectID, noDocuments) }
	var r apptest.Resp
	if policyErr, _ := storetest.Overlap(t, e.App.DB, setPolicy, func() error {
		r = e.Backend(http.MethodPut, "/v1/b2b/rbac/organizations/"+acme, map[string]any{"org_policy": map[string]any{"roles": reviewer}})
		return nil
	}); policyErr != nil {
		t.Fatal(policyErr)
	}
	apptest.Want(t, r, 400, "invalid_request")
	wantRolesValid(t, e, acme)
}

// assignRaceEnv is a project on docsPolicy with one organization and a
// member holding no custom role.
func assignRaceEnv(t *testing.T) (e *apptest.Env, org *organization.Organization, memberID string) {
	t.Helper()
	e, acme := policyRaceEnv(t)
	r := e.Backend(http.MethodPost, "/v1/b2b/organizations/"+acme+"/members", map[string]any{"email_address": "eve@acme.test"})
	apptest.Want(t, r, 200, "")
	org, err := e.App.Orgs.Get(t.Context(), e.Project.Project.ID, acme)
	if err != nil {
		t.Fatal(err)
	}
	return e, org, r.Body["member_id"].(string)
}

// wantNoDangling fails if the member or the organization's email
// assignments name a role the stored policy does not define.
func wantNoDangling(t *testing.T, e *apptest.Env, orgID, memberID string) {
	t.Helper()
	ctx, projectID := t.Context(), e.Project.Project.ID
	pol, err := e.App.RBAC.Policy(ctx, projectID)
	if err != nil {
		t.Fatal(err)
	}
	o, err := e.App.Orgs.Get(ctx, projectID, orgID)
	if err != nil {
		t.Fatal(err)
	}
	m, err := e.App.Orgs.Member(ctx, e.App.DB.Read(), projectID, memberID)
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range m.RoleIDs() {
		if !pol.HasRole(id, o.CustomRoles) {
			t.Errorf("member holds %q, which the policy no longer defines", id)
		}
	}
	for _, a := range o.RBACEmailImplicitRoleAssignments {
		if !pol.HasRole(a.RoleID, o.CustomRoles) {
			t.Errorf("email assignment of %q, which the policy no longer defines", a.RoleID)
		}
	}
}

// A member's role assignment held open while the policy removes the role:
// the policy change waits for it, sees the assignment and is refused.
func TestPolicyChangeDuringAMemberRoleAssignment(t *testing.T) {
	t.Parallel()
	e, org, eve := assignRaceEnv(t)
	ctx, projectID, editor := t.Context(), e.Project.Project.ID, []string{"editor"}
	assign := func(q store.Querier) error {
		_, err := e.App.Orgs.UpdateMember(ctx, q, org, e.Project.Project.Env, eve, organization.MemberUpdate{Roles: &editor})
		return err
	}
	assignErr, policyErr := storetest.Overlap(t, e.App.DB, assign, func() error {
		_, err := e.App.RBAC.SetCustom(ctx, projectID, noEditor)
		return err
	})
	if _, inUse := errors.AsType[*rbac.RolesInUseError](policyErr); assignErr != nil || !inUse {
		t.Fatalf("assignment: %v; policy change: %v; want the policy change refused", assignErr, policyErr)
	}
	wantNoDangling(t, e, org.OrganizationID, eve)
}

// The same with --force: the policy change waits for the assignment and
// removes it with the role.
func TestForcedPolicyChangeDuringAMemberRoleAssignment(t *testing.T) {
	t.Parallel()
	e, org, eve := assignRaceEnv(t)
	ctx, projectID, editor := t.Context(), e.Project.Project.ID, []string{"editor"}
	assign := func(q store.Querier) error {
		_, err := e.App.Orgs.UpdateMember(ctx, q, org, e.Project.Project.Env, eve, organization.MemberUpdate{Roles: &editor})
		return err
	}
	var dropped []organization.RoleRef
	assignErr, policyErr := storetest.Overlap(t, e.App.DB, assign, func() (err error) {
		_, dropped, err = e.App.RBAC.SetCustomDropping(ctx, projectID, noEditor)
		return err
	})
	if assignErr != nil || policyErr != nil || len(dropped) != 1 {
		t.Fatalf("assignment: %v; policy change: %v dropping %v; want both, the assignment dropped", assignErr, policyErr, dropped)
	}
	wantNoDangling(t, e, org.OrganizationID, eve)
}

// A policy change removing a role held open while a member is assigned
// it: the assignment waits, reads the new policy and is refused.
func TestMemberRoleAssignmentDuringAPolicyChange(t *testing.T) {
	t.Parallel()
	e, org, eve := assignRaceEnv(t)
	ctx, projectID := t.Context(), e.Project.Project.ID
	setPolicy := func(q store.Querier) error { return e.App.RBAC.SetCustomIn(ctx, q, projectID, noEditor) }
	var r apptest.Resp
	if policyErr, _ := storetest.Overlap(t, e.App.DB, setPolicy, func() error {
		r = e.Backend(http.MethodPut, memberPath(org.OrganizationID, eve), map[string]any{"roles": []string{"editor"}})
		return nil
	}); policyErr != nil {
		t.Fatal(policyErr)
	}
	apptest.Want(t, r, 400, "invalid_request")
	wantNoDangling(t, e, org.OrganizationID, eve)
}

// An organization's email assignment held open while the policy removes
// its role: the policy change waits, sees it and is refused.
func TestPolicyChangeDuringAnEmailAssignment(t *testing.T) {
	t.Parallel()
	e, org, eve := assignRaceEnv(t)
	ctx, projectID := t.Context(), e.Project.Project.ID
	assignments := []organization.RoleAssignment{{RoleID: "editor", Domain: "acme.test"}}
	assign := func(q store.Querier) error {
		_, err := e.App.Orgs.UpdateIn(ctx, q, projectID, org.OrganizationID, organization.Settings{RBACEmailImplicitRoleAssignments: &assignments})
		return err
	}
	assignErr, policyErr := storetest.Overlap(t, e.App.DB, assign, func() error {
		_, err := e.App.RBAC.SetCustom(ctx, projectID, noEditor)
		return err
	})
	if _, inUse := errors.AsType[*rbac.RolesInUseError](policyErr); assignErr != nil || !inUse {
		t.Fatalf("assignment: %v; policy change: %v; want the policy change refused", assignErr, policyErr)
	}
	wantNoDangling(t, e, org.OrganizationID, eve)
}

// A policy change removing a role held open while an organization update
// assigns it by email domain: the update reads the new policy inside its
// transaction (checkAssignedRoles) and is refused.
func TestEmailAssignmentDuringAPolicyChange(t *testing.T) {
	t.Parallel()
	e, org, eve := assignRaceEnv(t)
	ctx, projectID := t.Context(), e.Project.Project.ID
	setPolicy := func(q store.Querier) error { return e.App.RBAC.SetCustomIn(ctx, q, projectID, noEditor) }
	var r apptest.Resp
	if policyErr, _ := storetest.Overlap(t, e.App.DB, setPolicy, func() error {
		r = e.Backend(http.MethodPut, "/v1/b2b/organizations/"+org.OrganizationID, map[string]any{
			"rbac_email_implicit_role_assignments": []any{map[string]any{"role_id": "editor", "domain": "acme.test"}}})
		return nil
	}); policyErr != nil {
		t.Fatal(policyErr)
	}
	apptest.Want(t, r, 400, "invalid_request")
	wantNoDangling(t, e, org.OrganizationID, eve)
}
