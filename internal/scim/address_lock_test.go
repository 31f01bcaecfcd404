package scim_test

// The linked/created rules and lock order, as a second review attacked them.

import (
	"net/http"
	"testing"

	"github.com/latchkey/latchkey/internal/apptest"
	"github.com/latchkey/latchkey/internal/store"
	"github.com/latchkey/latchkey/internal/store/storetest"
)

// A linked member whose address was changed outside SCIM (by an admin
// through the member routes, as the mutability error itself advises, or
// by the member's own verified email update) must still be deprovisioned
// by the identity provider. PATCH rebuilds the user from the stored
// attributes, whose primary email is still the old address, and
// refuseAddressChange compares it with the member's current address, so
// a PATCH that does not touch emails at all (active: false, how Okta and
// Entra deactivate) is refused as an address change: a leaver stays
// active.
func TestLinkedMemberMovedOutsideSCIMCanStillBeDeactivated(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		org := e.CreateOrg("acme", "NOT_ALLOWED", nil)
		boss := e.CreateMember(org, "boss@acme.test")
		id, token, _ := connection(t, e, org, nil)
		do := func(method, path string, body any) apptest.Resp { return scimDo(e, method, id, path, token, body) }
		r := do(http.MethodPost, "/Users", map[string]any{"userName": "boss@acme.test",
			"emails": []any{map[string]any{"value": "boss@acme.test", "type": "work", "primary": true}}})
		wantSCIM(t, r, 201, "")
		if r.Body["id"] != boss {
			t.Fatalf("not linked: %s", r.Raw)
		}
		// The organization's admin moves the member to a new address.
		apptest.Want(t, e.Backend(http.MethodPut, "/v1/b2b/organizations/"+org+"/members/"+boss,
			map[string]any{"email_address": "chief@acme.test"}), 200, "")

		// The identity provider deactivates the user (no email in the PATCH).
		r = do(http.MethodPatch, "/Users/"+boss, patch(map[string]any{"op": "replace", "path": "active", "value": false}))
		if r.Status != http.StatusOK {
			t.Fatalf("deactivating a linked member whose address changed outside SCIM: %d %s", r.Status, r.Raw)
		}
		if m := member(t, e, org, boss); m["status"] != "deleted" {
			t.Fatalf("the deprovisioned member is still %v", m["status"])
		}
	})
}

// DELETE /Users forgets the registration; provisioning the address again
// finds the (deleted) member and links it again, so it stays linked and
// its address still cannot be moved.
func TestReprovisionedLinkedMemberStaysLinked(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		org := e.CreateOrg("acme", "NOT_ALLOWED", nil)
		admin := e.CreateAdmin(org, "boss@acme.test")
		id, token, _ := connection(t, e, org, nil)
		do := func(method, path string, body any) apptest.Resp { return scimDo(e, method, id, path, token, body) }
		wantSCIM(t, do(http.MethodPost, "/Users", map[string]any{"userName": "boss@acme.test"}), 201, "")
		wantSCIM(t, do(http.MethodDelete, "/Users/"+admin, nil), 204, "")
		for _, active := range []any{nil, false, true} {
			body := map[string]any{"userName": "boss@acme.test"}
			if active != nil {
				body["active"] = active
			}
			r := do(http.MethodPost, "/Users", body)
			wantSCIM(t, r, 201, "")
			if r.Body["id"] != admin {
				t.Fatalf("re-provisioned as %v", r.Body["id"])
			}
			wantSCIM(t, do(http.MethodPatch, "/Users/"+admin, patch(map[string]any{"op": "replace", "path": "active", "value": true})), 200, "")
			for _, change := range []apptest.Resp{
				do(http.MethodPatch, "/Users/"+admin, patch(map[string]any{"op": "replace", "value": map[string]any{
					"emails": []any{map[string]any{"value": "mallory@evil.test", "primary": true}}}})),
				do(http.MethodPatch, "/Users/"+admin, patch(map[string]any{"op": "add", "path": "emails",
					"value": []any{map[string]any{"value": "mallory@evil.test", "primary": true}}})),
				do(http.MethodPut, "/Users/"+admin, map[string]any{"userName": "mallory@evil.test"}),
			} {
				wantSCIM(t, change, 400, "mutability")
			}
			wantSCIM(t, do(http.MethodDelete, "/Users/"+admin, nil), 204, "")
		}
		if e.Count(`SELECT COUNT(*) FROM members WHERE email_address = $1`, "mallory@evil.test") != 0 {
			t.Fatal("mallory's address reached a member")
		}
	})
}

// Lock order member → registration (regForUpdate's comment, and every
// deletion of a member row, whose cascade reaches its registration after
// the member's row: organization.Store.Delete). A group add takes them the
// other way round: setMembers share-locks the registration, then its
// membership INSERT's foreign key check key-share-locks the member's row.
// Here the held transaction stands for an organization deletion that has
// deleted the member's row (FOR UPDATE) and has yet to reach its
// registration; the group add waits for the member's row while it holds
// the registration, which the deletion's cascade needs next (probed
// without waiting inside a savepoint): the real pair deadlocks
// (PostgreSQL aborts one after deadlock_timeout and store.Tx reruns it).
func TestGroupAddTakesMemberBeforeRegistration(t *testing.T) {
	t.Parallel()
	e, _, _, do := pgSCIM(t)
	r := do(http.MethodPost, "/Users", map[string]any{"userName": "ada@acme.test"})
	wantSCIM(t, r, 201, "")
	uid := r.Body["id"].(string)
	r = do(http.MethodPost, "/Groups", map[string]any{"displayName": "Staff"})
	wantSCIM(t, r, 201, "")
	gid := r.Body["id"].(string)
	ctx := t.Context()
	var held error
	var add apptest.Resp
	_, _ = storetest.Interleave(t, e.App.DB, func(q store.Querier) error {
		_, err := q.ExecContext(ctx, `SELECT 1 FROM members WHERE member_id = $1 FOR UPDATE`, uid)
		return err
	}, func() error {
		add = do(http.MethodPatch, "/Groups/"+gid, patch(map[string]any{"op": "add", "path": "members",
			"value": []any{map[string]any{"value": uid}}}))
		return nil
	}, func(q store.Querier) error {
		if _, err := q.ExecContext(ctx, `SAVEPOINT probe`); err != nil {
			return err
		}
		_, held = q.ExecContext(ctx, `SELECT 1 FROM scim_registrations WHERE member_id = $1 FOR UPDATE NOWAIT`, uid)
		_, err := q.ExecContext(ctx, `ROLLBACK TO SAVEPOINT probe`)
		return err
	})
	wantSCIM(t, add, 200, "")
	if held != nil {
		t.Fatalf("a group add waiting for the member's row already holds the member's registration (%v): "+
			"a deletion of the member's row (organization deletion: member, then its registration) deadlocks with it", held)
	}
}

// A member the connection created may change address through SCIM, but an
// address changed outside SCIM is not moved back by a later push that
// still carries the one the identity provider last sent.
func TestAddressChangedOutsideSCIMIsNotUndoneByAPush(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		org := e.CreateOrg("acme", "NOT_ALLOWED", nil)
		id, token, _ := connection(t, e, org, nil)
		do := func(method, path string, body any) apptest.Resp { return scimDo(e, method, id, path, token, body) }
		r := do(http.MethodPost, "/Users", map[string]any{"userName": "ada@acme.test",
			"emails": []any{map[string]any{"value": "ada@acme.test", "type": "work", "primary": true}}})
		wantSCIM(t, r, 201, "")
		ada := r.Body["id"].(string)
		apptest.Want(t, e.Backend(http.MethodPut, "/v1/b2b/organizations/"+org+"/members/"+ada,
			map[string]any{"email_address": "countess@acme.test"}), 200, "")
		r = do(http.MethodPatch, "/Users/"+ada, patch(map[string]any{"op": "replace", "path": "displayName", "value": "Ada L."}))
		wantSCIM(t, r, 200, "")
		if m := member(t, e, org, ada); m["email_address"] != "countess@acme.test" {
			t.Fatalf("a push without a new address moved the member back to %v", m["email_address"])
		}
		// A new address the identity provider sends is applied.
		r = do(http.MethodPatch, "/Users/"+ada, patch(map[string]any{"op": "replace", "path": "emails[type eq \"work\"].value",
			"value": "lovelace@acme.test"}))
		wantSCIM(t, r, 200, "")
		if m := member(t, e, org, ada); m["email_address"] != "lovelace@acme.test" {
			t.Fatalf("the identity provider's new address was not applied: %v", m["email_address"])
		}
	})
}
