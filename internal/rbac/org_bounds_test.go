package rbac_test

import (
	"fmt"
	"net/http"
	"slices"
	"sync/atomic"
	"testing"

	"github.com/latchkey/latchkey/internal/apptest"
	"github.com/latchkey/latchkey/internal/rbac"
	"github.com/latchkey/latchkey/internal/store"
	"github.com/latchkey/latchkey/internal/store/storetest"
)

// orgRolesBody is a PUT body for the organization policy route.
func orgRolesBody(roles []rbac.Role) map[string]any {
	return map[string]any{"org_policy": map[string]any{"roles": roles}}
}

// readers is n distinct roles reading documents.
func readers(n int) []rbac.Role {
	out := make([]rbac.Role, n)
	for i := range out {
		out[i] = rbac.Role{RoleID: fmt.Sprintf("reader-%d", i),
			Permissions: []rbac.Permission{{ResourceID: "documents", Actions: []string{"read"}}}}
	}
	return out
}

// overBounds are organization roles one past each bound, keyed by the
// field the refusal must name. Every entry would be refused anyway (the
// actions are not documents'), so only the bound tells which check ran.
func overBounds() map[string][]rbac.Role {
	many := func(n int, f func(i int) string) []string {
		out := make([]string, n)
		for i := range out {
			out[i] = f(i)
		}
		return out
	}
	perms := make([]rbac.Permission, rbac.MaxRolePermissions+1)
	for i := range perms {
		perms[i] = rbac.Permission{ResourceID: "documents", Actions: []string{"read"}}
	}
	return map[string][]rbac.Role{
		"org_policy.roles":             readers(rbac.MaxOrgRoles + 1),
		"org_policy.roles.permissions": {{RoleID: "wide", Permissions: perms}},
		"org_policy.roles.permissions.actions": {{RoleID: "busy", Permissions: []rbac.Permission{{ResourceID: "documents",
			Actions: many(rbac.MaxPermissionActions+1, func(i int) string { return fmt.Sprintf("act-%d", i) })}}}},
	}
}

// An organization's custom roles are bounded: 100 roles, 100 permissions
// a role and 100 actions a permission, counted as sent. One past a bound
// is refused naming the list, and nothing changes; at the bound (repeats
// merged) it is accepted.
func TestOrgRolesBounds(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		setPolicy(t, e, docsPolicy)
		acme := e.CreateOrg("acme", "ALL_ALLOWED", nil)
		path := "/v1/b2b/rbac/organizations/" + acme
		for field, roles := range overBounds() {
			r := e.Backend(http.MethodPut, path, orgRolesBody(roles))
			apptest.Want(t, r, 400, "invalid_request")
			if d, _ := r.Body["error_details"].(map[string]any); d["field"] != field {
				t.Errorf("%s: error_details %v", field, r.Body["error_details"])
			}
		}
		repeated := make([]string, rbac.MaxPermissionActions)
		for i := range repeated {
			repeated[i] = []string{"read", "write"}[i%2]
		}
		roles := readers(rbac.MaxOrgRoles)
		roles[0].Permissions = []rbac.Permission{{ResourceID: "documents", Actions: repeated}}
		apptest.Want(t, e.Backend(http.MethodPut, path, orgRolesBody(roles)), 200, "")
		o, err := e.App.Orgs.Get(t.Context(), e.Project.Project.ID, acme)
		if err != nil {
			t.Fatal(err)
		}
		if len(o.CustomRoles) != rbac.MaxOrgRoles || !slices.Equal(o.CustomRoles[0].Permissions[0].Actions, []string{"read", "write"}) {
			t.Fatalf("stored %d roles, first %+v", len(o.CustomRoles), o.CustomRoles[0])
		}
	})
}

// A refused organization roles change is refused before its transaction:
// with the policy lock (the project's row) held by another transaction,
// the answer comes while it is still held. Checked inside the transaction
// only, the request would wait for the lock, which Interleave reports,
// and answer after the holder went on (held turns false first). This is
// what keeps one big refused request from holding SQLite's one writer.
func TestOrgRolesRefusedBeforeTheTransaction(t *testing.T) {
	t.Parallel()
	e, acme := policyRaceEnv(t)
	ctx, projectID := t.Context(), e.Project.Project.ID
	cases := overBounds()
	cases["unknown resource"] = []rbac.Role{{RoleID: "x", Permissions: []rbac.Permission{{ResourceID: "files", Actions: []string{"read"}}}}}
	for name, roles := range cases {
		var held atomic.Bool
		held.Store(true)
		var r apptest.Resp
		var answeredWhileHeld bool
		lock := func(q store.Querier) error { return e.App.DB.LockRow(ctx, q, "projects", "project_id", projectID) }
		_, _ = storetest.Interleave(t, e.App.DB, lock, func() error {
			r = e.Backend(http.MethodPut, "/v1/b2b/rbac/organizations/"+acme, orgRolesBody(roles))
			answeredWhileHeld = held.Load()
			return nil
		}, func(store.Querier) error { held.Store(false); return nil })
		apptest.Want(t, r, 400, "invalid_request")
		if !answeredWhileHeld {
			t.Errorf("%s: answered only after the policy lock was released", name)
		}
	}
	wantRolesValid(t, e, acme)
}
