package scim_test

// Regression checks from the SCIM security review (they passed on the
// code as reviewed; kept so they stay true).

import (
	"net/http"
	"testing"
	"time"

	"github.com/latchkey/latchkey/internal/apptest"
	"github.com/latchkey/latchkey/internal/organization"
	"github.com/latchkey/latchkey/internal/rbac"
	"github.com/latchkey/latchkey/internal/scim"
)

func TestTokenExpiryAndFailureLimit(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		org := e.CreateOrg("acme", "NOT_ALLOWED", nil)
		id, token, _ := connection(t, e, org, nil)
		for i := 0; i < 30; i++ {
			wantSCIM(t, scimDo(e, http.MethodGet, id, "/Users", "wrong", nil), 401, "")
		}
		if r := scimDo(e, http.MethodGet, id, "/Users", "wrong", nil); r.Status != 429 {
			t.Fatalf("31st wrong token: %d %s", r.Status, r.Raw)
		}
		wantSCIM(t, scimDo(e, http.MethodGet, id, "/Users", token, nil), 200, "")
		// Rotation started, then the current token expires: only the next works.
		e.Clock.Advance(200 * 24 * time.Hour)
		r := e.Backend(http.MethodPost, "/v1/b2b/scim/"+org+"/connection/"+id+"/rotate/start", nil)
		next := r.Body["connection"].(map[string]any)["next_bearer_token"].(string)
		e.Clock.Advance(166 * 24 * time.Hour)
		if scimDo(e, http.MethodGet, id, "/Users", token, nil).Status != 401 {
			t.Fatal("an expired token was accepted")
		}
		wantSCIM(t, scimDo(e, http.MethodGet, id, "/Users", next, nil), 200, "")
		apptest.Want(t, e.Backend(http.MethodPost, "/v1/b2b/scim/"+org+"/connection/"+id+"/rotate/complete", nil), 200, "")
		apptest.Want(t, e.Backend(http.MethodPost, "/v1/b2b/scim/"+org+"/connection/"+id+"/rotate/cancel", nil), 400, "scim_connection_not_rotating_token")
		if scimDo(e, http.MethodGet, id, "/Users", token, nil).Status != 401 {
			t.Fatal("the old token works after complete")
		}
		wantSCIM(t, scimDo(e, http.MethodGet, id, "/Users", next, nil), 200, "")
		if n := e.Count(`SELECT COUNT(*) FROM scim_connections WHERE token_hash = $1 OR next_token_hash = $1 OR token_hash = $2`, token, next); n != 0 {
			t.Fatal("a plaintext token is stored")
		}
	})
}

// A role that a SCIM group assignment names cannot leave the policy
// unnoticed; dropping it removes the assignment.
func TestPolicyChangeSeesGroupRoles(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		ctx, pid := t.Context(), e.Project.Project.ID
		pol := rbac.Policy{Roles: []rbac.Role{{RoleID: "auditor", Description: "x", Permissions: []organization.Permission{}}}}
		if _, err := e.App.RBAC.SetCustom(ctx, pid, pol); err != nil {
			t.Fatal(err)
		}
		org := e.CreateOrg("acme", "NOT_ALLOWED", nil)
		id, token, _ := connection(t, e, org, nil)
		r := scimDo(e, http.MethodPost, id, "/Users", token, map[string]any{"userName": "ada@acme.test"})
		uid := r.Body["id"].(string)
		r = scimDo(e, http.MethodPost, id, "/Groups", token, map[string]any{"displayName": "Audit", "members": []any{map[string]any{"value": uid}}})
		gid := r.Body["id"].(string)
		apptest.Want(t, e.Backend(http.MethodPut, "/v1/b2b/scim/"+org+"/connection/"+id, map[string]any{
			"scim_group_implicit_role_assignments": []any{map[string]any{"role_id": "nope", "group_id": gid}}}), 400, "invalid_request")
		apptest.Want(t, e.Backend(http.MethodPut, "/v1/b2b/scim/"+org+"/connection/"+id, map[string]any{
			"scim_group_implicit_role_assignments": []any{map[string]any{"role_id": "auditor", "group_id": gid}}}), 200, "")
		if roleSources(member(t, e, org, uid), "auditor") == nil {
			t.Fatal("group role not held")
		}
		if _, err := e.App.RBAC.SetCustom(ctx, pid, rbac.Policy{}); err == nil {
			t.Fatal("a policy change removed a role still assigned to a SCIM group")
		}
		if _, _, err := e.App.RBAC.SetCustomDropping(ctx, pid, rbac.Policy{}); err != nil {
			t.Fatal(err)
		}
		c := e.Backend(http.MethodGet, "/v1/b2b/scim/"+org+"/connection", nil).Body["connection"].(map[string]any)
		if a := c["scim_group_implicit_role_assignments"].([]any); len(a) != 0 {
			t.Fatalf("assignment kept after drop: %v", a)
		}
	})
}

// Two processes: group changes made through one reach the other's cached
// sessions within a second.
func TestGroupRolesReachOtherProcess(t *testing.T) {
	apptest.EachPair(t, func(t *testing.T, e1, e2 *apptest.Env) {
		org := e1.CreateOrg("acme", "NOT_ALLOWED", nil)
		id, token, _ := connection(t, e1, org, nil)
		r := scimDo(e1, http.MethodPost, id, "/Users", token, map[string]any{"userName": "ada@acme.test"})
		uid := r.Body["id"].(string)
		r = scimDo(e1, http.MethodPost, id, "/Groups", token, map[string]any{"displayName": "Admins", "members": []any{map[string]any{"value": uid}}})
		gid := r.Body["id"].(string)
		apptest.Want(t, e1.Backend(http.MethodPut, "/v1/b2b/scim/"+org+"/connection/"+id, map[string]any{
			"scim_group_implicit_role_assignments": []any{map[string]any{"role_id": "stytch_admin", "group_id": gid}}}), 200, "")
		session := e1.SessionFor(org, "ada@acme.test")
		eventually := func(what string, want bool) {
			t.Helper()
			deadline := time.Now().Add(3 * time.Second)
			for sessionHas(t, e2, session, "stytch_admin") != want {
				if time.Now().After(deadline) {
					t.Fatalf("%s: e2 still shows stytch_admin=%v", what, !want)
				}
				time.Sleep(50 * time.Millisecond)
			}
		}
		eventually("warm", true)
		scimDo(e1, http.MethodPatch, id, "/Groups/"+gid, token, patch(map[string]any{"op": "remove", "path": `members[value eq "` + uid + `"]`}))
		eventually("left the group", false)
		scimDo(e1, http.MethodPatch, id, "/Groups/"+gid, token, patch(map[string]any{"op": "add", "path": "members", "value": []any{map[string]any{"value": uid}}}))
		eventually("rejoined", true)
		apptest.Want(t, e1.Backend(http.MethodPut, "/v1/b2b/scim/"+org+"/connection/"+id, map[string]any{
			"scim_group_implicit_role_assignments": []any{}}), 200, "")
		eventually("assignment removed", false)
		apptest.Want(t, e1.Backend(http.MethodPut, "/v1/b2b/scim/"+org+"/connection/"+id, map[string]any{
			"scim_group_implicit_role_assignments": []any{map[string]any{"role_id": "stytch_admin", "group_id": gid}}}), 200, "")
		eventually("assignment back", true)
		scimDo(e1, http.MethodDelete, id, "/Groups/"+gid, token, nil)
		eventually("group deleted", false)
	})
}

// Parallel POST /Users of one new userName (an identity provider's retry
// storm): one is created, the others are 409 uniqueness, none a 500.
func TestParallelCreatesOfOneUser(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		org := e.CreateOrg("acme", "NOT_ALLOWED", nil)
		id, token, _ := connection(t, e, org, nil)
		mid := e.CreateMember(org, "old@acme.test")
		for round, body := range []map[string]any{
			{"userName": "new@acme.test"},
			{"userName": "old@acme.test"}, // links an existing member
			{"userName": "ext-1", "emails": []any{map[string]any{"value": "ext@acme.test"}}},
		} {
			const n = 6
			codes := make(chan int, n)
			for i := 0; i < n; i++ {
				go func() { codes <- scimDo(e, http.MethodPost, id, "/Users", token, body).Status }()
			}
			created := 0
			for i := 0; i < n; i++ {
				switch c := <-codes; c {
				case 201:
					created++
				case 409:
				default:
					t.Fatalf("round %d: status %d", round, c)
				}
			}
			if created != 1 {
				t.Fatalf("round %d: %d created", round, created)
			}
		}
		_ = mid
	})
}

// An admin of one organization reaches no other organization's
// connection through the SDK face, and the backend face with a member
// session header is authorized like the SDK face.
func TestTenancyOfConnectionManagement(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		acme := e.CreateOrg("acme", "NOT_ALLOWED", nil)
		globex := e.CreateOrg("globex", "NOT_ALLOWED", nil)
		e.CreateAdmin(acme, "admin@acme.test")
		e.CreateMember(acme, "mule@acme.test")
		admin, mule := e.SessionFor(acme, "admin@acme.test"), e.SessionFor(acme, "mule@acme.test")
		gid, _, _ := connection(t, e, globex, nil)
		for _, r := range []apptest.Resp{
			e.SDK(http.MethodPut, "/b2b/scim/"+gid, map[string]any{"display_name": "x"}, admin),
			e.SDK(http.MethodDelete, "/b2b/scim/"+gid, nil, admin),
			e.SDK(http.MethodPost, "/b2b/scim/rotate/start", map[string]any{"connection_id": gid}, admin),
		} {
			if r.Status != 404 {
				t.Fatalf("cross-organization SDK call: %d %s", r.Status, r.Raw)
			}
		}
		if r := e.SDK(http.MethodGet, "/b2b/scim", nil, admin); r.Data()["connection"] != nil {
			t.Fatalf("acme sees a connection: %s", r.Raw)
		}
		aid, _, _ := connection(t, e, acme, nil)
		apptest.Want(t, e.BackendAs(http.MethodPost, "/v1/b2b/scim/"+acme+"/connection/"+aid+"/rotate/start", nil,
			"X-Stytch-Member-Session", mule), 403, "unauthorized_action")
		apptest.Want(t, e.BackendAs(http.MethodGet, "/v1/b2b/scim/"+globex+"/connection", nil,
			"X-Stytch-Member-Session", admin), 403, "tenancy_mismatch")
	})
}

// The next bearer token of a rotation has a lifetime of its own from the
// rotation's start: a rotation started and never completed or cancelled
// must not leave a token that works for ever.
func TestNextTokenExpiresWhenItsRotationIsLeftOpen(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		org := e.CreateOrg("acme", "NOT_ALLOWED", nil)
		id, _, _ := connection(t, e, org, nil)
		r := e.Backend(http.MethodPost, "/v1/b2b/scim/"+org+"/connection/"+id+"/rotate/start", nil)
		next := r.Body["connection"].(map[string]any)["next_bearer_token"].(string)
		wantSCIM(t, scimDo(e, http.MethodGet, id, "/Users", next, nil), 200, "")
		e.Clock.Advance(scim.TokenLifetime + time.Hour)
		if r := scimDo(e, http.MethodGet, id, "/Users", next, nil); r.Status != 401 {
			t.Fatalf("the next token past its lifetime: %d %s", r.Status, r.Raw)
		}
	})
}
