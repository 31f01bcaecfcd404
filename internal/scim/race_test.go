package scim_test

// PostgreSQL interleavings of SCIM writes. The held transaction is the
// product's own code where one is reachable from a test (the organization
// store's member lock), or a row lock standing for a concurrent writer;
// where a test replays statements the SCIM handler commits, it says so.

import (
	"net/http"
	"slices"
	"testing"
	"time"

	"github.com/latchkey/latchkey/internal/apptest"
	"github.com/latchkey/latchkey/internal/store"
	"github.com/latchkey/latchkey/internal/store/storetest"
)

// pgSCIM is a PostgreSQL server with an organization and its SCIM
// connection.
func pgSCIM(t *testing.T) (e *apptest.Env, org, id string, do func(method, path string, body any) apptest.Resp) {
	t.Helper()
	e = apptest.New(t, apptest.Postgres(t), nil)
	org = e.CreateOrg("acme", "NOT_ALLOWED", nil)
	id, token, _ := connection(t, e, org, nil)
	return e, org, id, func(method, path string, body any) apptest.Resp { return scimDo(e, method, id, path, token, body) }
}

// holdMember locks a member's row in q as every member update does
// (organization.Store.MemberForUpdate): a SCIM PATCH that changes the
// member's name waits there, after it read the user's registration.
func holdMember(e *apptest.Env, mid string) func(q store.Querier) error {
	return func(q store.Querier) error {
		_, err := e.App.Orgs.MemberForUpdate(e.T.Context(), q, e.Project.Project.ID, mid)
		return err
	}
}

// Two PATCHes of one user at once (Entra sends attribute changes one
// operation per request, in parallel): updateUser reads the registration
// without a lock and writes every attribute back from that read, so the
// one that commits last undoes the other's change. Here PATCH 1 (a
// rename) reads, then waits for the member's row; PATCH 2 (department)
// runs to completion meanwhile; PATCH 1 then writes its stale attributes
// over PATCH 2's.
func TestConcurrentUserPatchesKeepBothChanges(t *testing.T) {
	t.Parallel()
	e, org, _, do := pgSCIM(t)
	r := do(http.MethodPost, "/Users", map[string]any{"userName": "ada@acme.test", "displayName": "Ada"})
	wantSCIM(t, r, 201, "")
	uid := r.Body["id"].(string)
	var rename, dept apptest.Resp
	step, wait := meanwhile(func() {
		dept = do(http.MethodPatch, "/Users/"+uid, patch(map[string]any{"op": "add",
			"path": "urn:ietf:params:scim:schemas:extension:enterprise:2.0:User:department", "value": "R&D"}))
	})
	_, _ = storetest.Interleave(t, e.App.DB, holdMember(e, uid), func() error {
		rename = do(http.MethodPatch, "/Users/"+uid, patch(map[string]any{"op": "replace", "path": "displayName", "value": "Augusta"}))
		return nil
	}, step)
	wait()
	wantSCIM(t, dept, 200, "")
	wantSCIM(t, rename, 200, "")
	m := member(t, e, org, uid)
	attrs := m["scim_registration"].(map[string]any)["scim_attributes"].(map[string]any)
	x, _ := attrs["enterprise_extension"].(map[string]any)
	if m["name"] != "Augusta" || x["department"] != "R&D" {
		t.Fatalf("after two concurrent PATCHes: name %v, enterprise_extension %v: one change was lost", m["name"], attrs["enterprise_extension"])
	}
}

// Two renames to the same userName at once. Here rename A waits for its
// member's row (held) while rename B completes; A's update locks the
// user's rows before it reads and checks (regForUpdate), so it then sees
// B's name: 409 uniqueness, not a 500 from the unique index.
// TestRenameLosingTheUniqueIndexIsUniqueness covers the order where the
// index itself refuses the second.
func TestConcurrentRenameToTakenUserNameIsUniqueness(t *testing.T) {
	t.Parallel()
	e, _, _, do := pgSCIM(t)
	a := do(http.MethodPost, "/Users", map[string]any{"userName": "a@acme.test", "displayName": "A"})
	b := do(http.MethodPost, "/Users", map[string]any{"userName": "b@acme.test", "displayName": "B"})
	wantSCIM(t, a, 201, "")
	wantSCIM(t, b, 201, "")
	aid, bid := a.Body["id"].(string), b.Body["id"].(string)
	var ra, rb apptest.Resp
	step, wait := meanwhile(func() {
		rb = do(http.MethodPut, "/Users/"+bid, map[string]any{"userName": "shared", "displayName": "B",
			"emails": []any{map[string]any{"value": "b@acme.test", "primary": true}}})
	})
	_, _ = storetest.Interleave(t, e.App.DB, holdMember(e, aid), func() error {
		// A rename with a name change: it waits for A's member row after
		// its userTaken check passed.
		ra = do(http.MethodPut, "/Users/"+aid, map[string]any{"userName": "Shared", "displayName": "A2",
			"emails": []any{map[string]any{"value": "a@acme.test", "primary": true}}})
		return nil
	}, step)
	wait()
	wantSCIM(t, rb, 200, "")
	wantSCIM(t, ra, 409, "uniqueness")
}

// A group PATCH adding a user while the same user is deprovisioned
// (DELETE /Users): the add must either be seen by the deletion (which
// then removes the membership) or see the deletion (and refuse the user).
// A plain read of the registration let it through: the group then listed
// a deleted member, and when the identity provider later provisioned the
// address again (the same member, reactivated and linked) the stale
// membership gave the group's role to someone the identity provider
// never put in the group.
//
// The real deleteUser runs and is held part way: the held transaction
// locks the user's membership of another group (as a concurrent PATCH
// removing them from it would), so the deletion waits at its membership
// DELETE with its earlier statements uncommitted. The group add runs
// meanwhile.
func TestGroupAddRacingUserDeleteLeavesNoMembership(t *testing.T) {
	t.Parallel()
	e, org, id, do := pgSCIM(t)
	r := do(http.MethodPost, "/Users", map[string]any{"userName": "ada@acme.test"})
	wantSCIM(t, r, 201, "")
	uid := r.Body["id"].(string)
	r = do(http.MethodPost, "/Groups", map[string]any{"displayName": "Staff", "members": []any{map[string]any{"value": uid}}})
	wantSCIM(t, r, 201, "")
	staff := r.Body["id"].(string)
	r = do(http.MethodPost, "/Groups", map[string]any{"displayName": "Admins"})
	wantSCIM(t, r, 201, "")
	gid := r.Body["id"].(string)
	apptest.Want(t, e.Backend(http.MethodPut, "/v1/b2b/scim/"+org+"/connection/"+id, map[string]any{
		"scim_group_implicit_role_assignments": []any{map[string]any{"role_id": "stytch_admin", "group_id": gid}}}), 200, "")

	ctx := t.Context()
	var del, add apptest.Resp
	step, wait := meanwhile(func() {
		add = do(http.MethodPatch, "/Groups/"+gid, patch(map[string]any{"op": "add", "path": "members",
			"value": []any{map[string]any{"value": uid}}}))
	})
	if _, err := storetest.Interleave(t, e.App.DB, func(q store.Querier) error {
		_, err := q.ExecContext(ctx, `SELECT 1 FROM scim_group_members WHERE group_id = $1 AND member_id = $2 FOR UPDATE`, staff, uid)
		return err
	}, func() error {
		del = do(http.MethodDelete, "/Users/"+uid, nil)
		return nil
	}, step); err != nil {
		t.Fatal(err)
	}
	wait()
	wantSCIM(t, del, 204, "")
	t.Logf("group add during the deprovisioning: %d %s", add.Status, add.Raw)
	// Provisioned again later, without any group.
	r = do(http.MethodPost, "/Users", map[string]any{"userName": "ada@acme.test"})
	wantSCIM(t, r, 201, "")
	if r.Body["id"] != uid {
		t.Fatalf("re-provisioned as %v, want the same member %s", r.Body["id"], uid)
	}
	if gs, _ := r.Body["groups"].([]any); len(gs) != 0 || roleSources(member(t, e, org, uid), "stytch_admin") != nil {
		t.Fatalf("the re-provisioned user is in groups %v and holds stytch_admin from a membership added while it was deleted", r.Body["groups"])
	}
}

// The rename's other loser: a concurrent rename of another user to the
// same userName is in flight, uncommitted, when this one checks
// (userTaken sees nothing) and writes; its UPDATE waits on the unique
// index and then breaks it. That is 409 uniqueness, as the check's
// refusal is, not a 500. The held transaction runs the statement
// updateUser commits for the other user's rename.
func TestRenameLosingTheUniqueIndexIsUniqueness(t *testing.T) {
	t.Parallel()
	e, _, id, do := pgSCIM(t)
	a := do(http.MethodPost, "/Users", map[string]any{"userName": "a@acme.test"})
	b := do(http.MethodPost, "/Users", map[string]any{"userName": "b@acme.test"})
	wantSCIM(t, a, 201, "")
	wantSCIM(t, b, 201, "")
	aid, bid := a.Body["id"].(string), b.Body["id"].(string)
	ctx := t.Context()
	var ra apptest.Resp
	_, _ = storetest.Overlap(t, e.App.DB, func(q store.Querier) error {
		_, err := q.ExecContext(ctx, `UPDATE scim_registrations SET user_name_key = 'shared' WHERE connection_id = $1 AND member_id = $2`,
			id, bid)
		return err
	}, func() error {
		ra = do(http.MethodPatch, "/Users/"+aid, patch(map[string]any{"op": "replace", "path": "userName", "value": "Shared"}))
		return nil
	})
	wantSCIM(t, ra, 409, "uniqueness")
}

// meanwhile runs call while the held transaction is still open (an
// Interleave's last step) and gives it up to two seconds: on the landed
// code it completes at once; on code that serializes it behind the
// blocked request it waits, and the held transaction commits anyway so
// both can finish (wait, after Interleave, for its outcome).
func meanwhile(call func()) (step func(store.Querier) error, wait func()) {
	done := make(chan struct{})
	step = func(store.Querier) error {
		go func() { call(); close(done) }()
		select {
		case <-done:
		case <-time.After(2 * time.Second):
		}
		return nil
	}
	return step, func() { <-done }
}

// sessionHas reports whether a session token's roles include role.
func sessionHas(t *testing.T, e *apptest.Env, token, role string) bool {
	return slices.Contains(sessionRoles(t, e, token), role)
}

// Lock order: every other writer takes an organization's row before its
// connections' (the SSO module's lockConnection, organization.Store.Delete
// whose cascade reaches scim_connections, the RBAC referrers'
// organizations-then-connections order), but every SCIM connection write
// (rotate, update, delete, deleteGroup, RoleRefs' drop) locks the
// connection row first and then updates the organization's row
// (summarise). Here the held transaction is organization.Store.Delete's
// first step (the organization's row lock); a rotation starts meanwhile
// and waits for that row. At that point it must hold nothing the
// deletion's cascade needs next: the test tries the connection's row
// without waiting (inside a savepoint, so nothing deadlocks here). On the
// landed code the rotation already holds it, so the real deletion's
// DELETE deadlocks with the rotation (PostgreSQL aborts one after
// deadlock_timeout and store.Tx reruns it: a one-second stall, and a
// retried loser).
func TestConnectionWritesLockTheOrganizationFirst(t *testing.T) {
	t.Parallel()
	e, org, id, _ := pgSCIM(t)
	ctx := t.Context()
	var held error
	var rotate apptest.Resp
	_, _ = storetest.Interleave(t, e.App.DB, func(q store.Querier) error {
		return e.App.DB.LockRow(ctx, q, "organizations", "organization_id", org)
	}, func() error {
		rotate = e.Backend(http.MethodPost, "/v1/b2b/scim/"+org+"/connection/"+id+"/rotate/start", nil)
		return nil
	}, func(q store.Querier) error {
		if _, err := q.ExecContext(ctx, `SAVEPOINT probe`); err != nil {
			return err
		}
		_, held = q.ExecContext(ctx, `SELECT 1 FROM scim_connections WHERE connection_id = $1 FOR UPDATE NOWAIT`, id)
		_, err := q.ExecContext(ctx, `ROLLBACK TO SAVEPOINT probe`)
		return err
	})
	apptest.Want(t, rotate, 200, "")
	if held != nil {
		t.Fatalf("a rotation waiting for the organization's row already holds its connection's row (%v): "+
			"an organization deletion (organization row, then the cascade to the connection) deadlocks with it", held)
	}
}
