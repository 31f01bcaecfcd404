package rbac_test

import (
	"net/http"
	"testing"

	"github.com/latchkey/latchkey/internal/apptest"
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
	e := apptest.New(t, storetest.Postgres(t), nil)
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
