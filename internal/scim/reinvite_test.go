package scim_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/latchkey/latchkey/internal/apptest"
	"github.com/latchkey/latchkey/internal/store"
	"github.com/latchkey/latchkey/internal/store/storetest"
)

// An admin's invite or creation of a deleted member's never-verified
// address replaces that member (organization.PurgeGuard), except one the
// SCIM connection provisioned: the identity provider still knows the
// user by its id and may reactivate it.

// wantKeptForSCIM fails unless r refuses an admin's invite or creation of
// a SCIM-provisioned deleted member, saying why, and without sending the
// admin to a reactivation they would be refused (the member's address is
// unverified).
func wantKeptForSCIM(t *testing.T, r apptest.Resp) {
	t.Helper()
	apptest.Want(t, r, 403, "inactive_member")
	msg, _ := r.Body["error_message"].(string)
	if !strings.Contains(msg, "SCIM connection") {
		t.Fatalf("the refusal does not say why: %s", r.Raw)
	}
	if strings.Contains(msg, "reactivate the member instead") {
		t.Fatalf("the refusal sends the admin to a reactivation they cannot make: %s", r.Raw)
	}
}

func TestDeletedProvisionedMemberIsNotReplaced(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		org := e.CreateOrg("acme", "NOT_ALLOWED", nil)
		id, token, _ := connection(t, e, org, nil)
		do := func(method, path string, body any) apptest.Resp { return scimDo(e, method, id, path, token, body) }
		r := do(http.MethodPost, "/Users", map[string]any{"userName": "nia@acme.test"})
		wantSCIM(t, r, 201, "")
		mid := r.Body["id"].(string)
		wantSCIM(t, do(http.MethodPatch, "/Users/"+mid, patch(map[string]any{"op": "replace", "path": "active", "value": false})), 200, "")

		wantKeptForSCIM(t, e.Backend(http.MethodPost, "/v1/b2b/magic_links/email/invite",
			map[string]any{"organization_id": org, "email_address": "nia@acme.test"}))
		wantKeptForSCIM(t, e.Backend(http.MethodPost, "/v1/b2b/organizations/"+org+"/members",
			map[string]any{"email_address": "nia@acme.test"}))
		// Nor may an admin reactivate them (the address was never verified):
		// the refusal points to the identity provider, not to an invite.
		r = e.Backend(http.MethodPut, "/v1/b2b/organizations/"+org+"/members/"+mid+"/reactivate", nil)
		apptest.Want(t, r, 400, "email_unverified_for_reactivation")
		if msg, _ := r.Body["error_message"].(string); !strings.Contains(msg, "SCIM connection") {
			t.Fatalf("the refused reactivation does not say why: %s", r.Raw)
		}
		if m := member(t, e, org, mid); m["status"] != "deleted" || m["scim_registration"] == nil {
			t.Fatalf("member after the refused invite and reactivation: %v", m)
		}
		// The identity provider brings back the member it knows, verified
		// or not: its own reactivation has no such rule.
		wantSCIM(t, do(http.MethodPatch, "/Users/"+mid, patch(map[string]any{"op": "replace", "path": "active", "value": true})), 200, "")
		if m := member(t, e, org, mid); m["status"] != "active" {
			t.Fatalf("member after reactivation: %v", m)
		}
	})
}

// An invite while the SCIM connection links the revoked invitee
// (PostgreSQL, the registration's insert held open until the invite waits
// for it): the purge waits for the registration and then keeps the
// member, rather than deleting it and the new registration with it.
func TestReinviteDuringALink(t *testing.T) {
	t.Parallel()
	e, org, conn, _ := pgSCIM(t)
	invite := func() apptest.Resp {
		return e.Backend(http.MethodPost, "/v1/b2b/magic_links/email/invite", map[string]any{"organization_id": org, "email_address": "nia@acme.test"})
	}
	r := invite()
	apptest.Want(t, r, 200, "")
	mid := r.Body["member_id"].(string)
	e.DeleteMember(org, mid)
	// What POST /Users does to link a deleted member sent with active
	// false: it inserts the registration and leaves the member's row.
	link := func(q store.Querier) error {
		_, err := q.ExecContext(t.Context(), `INSERT INTO scim_registrations (registration_id, connection_id, organization_id,
			member_id, user_name_key, attributes, linked, created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
			"scim-registration-test-race", conn, org, mid, "nia@acme.test", `{"userName":"nia@acme.test"}`, true, 0, 0)
		return err
	}
	if err, _ := storetest.Overlap(t, e.App.DB, link, func() error { r = invite(); return nil }); err != nil {
		t.Fatal(err)
	}
	wantKeptForSCIM(t, r)
	if n := e.Count(`SELECT COUNT(*) FROM scim_registrations WHERE member_id = $1`, mid); n != 1 {
		t.Fatalf("%d registrations of the linked member, want 1", n)
	}
}
