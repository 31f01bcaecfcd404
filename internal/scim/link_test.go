package scim_test

// Linking: POST /Users links an existing member with the address (Okta
// and Entra expect it), but the bearer token must not become a way to
// take over members it did not create.

import (
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/latchkey/latchkey/internal/apptest"
)

// A linked member keeps their address: otherwise the token holder could
// move a pre-existing admin to an address it controls and log in as them.
// Everything else SCIM manages (name, attributes, active, groups) still
// applies to them.
func TestLinkedMemberKeepsTheirAddress(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		org := e.CreateOrg("acme", "NOT_ALLOWED", nil)
		admin := e.CreateAdmin(org, "boss@acme.test")
		id, token, _ := connection(t, e, org, nil)
		do := func(method, path string, body any) apptest.Resp { return scimDo(e, method, id, path, token, body) }
		r := do(http.MethodPost, "/Users", map[string]any{"userName": "boss@acme.test"})
		wantSCIM(t, r, 201, "")
		if r.Body["id"] != admin {
			t.Fatalf("not linked: %s", r.Raw)
		}
		for _, change := range []apptest.Resp{
			do(http.MethodPatch, "/Users/"+admin, patch(map[string]any{"op": "replace",
				"path": `emails[type eq "work"].value`, "value": "mallory@evil.test"})),
			do(http.MethodPatch, "/Users/"+admin, patch(map[string]any{"op": "replace", "path": "userName", "value": "mallory@evil.test"})),
			do(http.MethodPut, "/Users/"+admin, map[string]any{"userName": "boss@acme.test",
				"emails": []any{map[string]any{"value": "mallory@evil.test", "primary": true}}}),
		} {
			wantSCIM(t, change, 400, "mutability")
			if d, _ := change.Body["detail"].(string); !strings.Contains(d, "email address cannot be changed") {
				t.Fatalf("detail: %s", change.Raw)
			}
		}
		if got := member(t, e, org, admin)["email_address"]; got != "boss@acme.test" {
			t.Fatalf("a linked member's address became %v", got)
		}
		if e.Count(`SELECT COUNT(*) FROM members WHERE email_address = $1`, "mallory@evil.test") != 0 {
			t.Fatal("mallory's address reached a member")
		}

		// Name, attributes and active still follow the identity provider.
		r = do(http.MethodPatch, "/Users/"+admin, patch(
			map[string]any{"op": "replace", "path": "displayName", "value": "The Boss"},
			map[string]any{"op": "add", "path": "title", "value": "CEO"}))
		wantSCIM(t, r, 200, "")
		if m := member(t, e, org, admin); m["name"] != "The Boss" || r.Body["title"] != "CEO" {
			t.Fatalf("name %v, user %s", m["name"], r.Raw)
		}
		wantSCIM(t, do(http.MethodPatch, "/Users/"+admin, patch(map[string]any{"op": "replace", "path": "active", "value": "False"})), 200, "")
		if m := member(t, e, org, admin); m["status"] != "deleted" {
			t.Fatalf("deactivated linked member: %v", m["status"])
		}
		wantSCIM(t, do(http.MethodPatch, "/Users/"+admin, patch(map[string]any{"op": "replace", "path": "active", "value": true})), 200, "")
		if m := member(t, e, org, admin); m["status"] != "active" {
			t.Fatalf("reactivated linked member: %v", m["status"])
		}
		if !slices.Contains(sessionRoles(t, e, e.SessionFor(org, "boss@acme.test")), "stytch_admin") {
			t.Fatal("the linked admin lost their role")
		}
	})
}

// A member the connection created may change address (the identity
// provider owns the account), as before.
func TestCreatedMemberMayChangeAddress(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		org := e.CreateOrg("acme", "NOT_ALLOWED", nil)
		id, token, _ := connection(t, e, org, nil)
		r := scimDo(e, http.MethodPost, id, "/Users", token, map[string]any{"userName": "ada@acme.test"})
		wantSCIM(t, r, 201, "")
		uid := r.Body["id"].(string)
		r = scimDo(e, http.MethodPatch, id, "/Users/"+uid, token, patch(map[string]any{"op": "replace",
			"path": `emails[type eq "work"].value`, "value": "ada.lovelace@acme.test"}))
		wantSCIM(t, r, 200, "")
		if got := member(t, e, org, uid)["email_address"]; got != "ada.lovelace@acme.test" {
			t.Fatalf("a created member's address is %v", got)
		}
	})
}

// Break-glass members are outside SCIM: never linked, and one marked
// break-glass after it was provisioned is neither changed, deprovisioned
// nor put in a group.
func TestBreakglassMembersAreNotManaged(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		org := e.CreateOrg("acme", "NOT_ALLOWED", nil)
		r := e.Backend(http.MethodPost, "/v1/b2b/organizations/"+org+"/members",
			map[string]any{"email_address": "glass@acme.test", "is_breakglass": true})
		apptest.Want(t, r, 200, "")
		glass := r.Body["member_id"].(string)
		id, token, _ := connection(t, e, org, nil)
		do := func(method, path string, body any) apptest.Resp { return scimDo(e, method, id, path, token, body) }
		r = do(http.MethodPost, "/Users", map[string]any{"userName": "glass@acme.test"})
		wantSCIM(t, r, 409, "uniqueness")
		if d, _ := r.Body["detail"].(string); !strings.Contains(d, "break-glass") {
			t.Fatalf("detail: %s", r.Raw)
		}
		if member(t, e, org, glass)["scim_registration"] != nil {
			t.Fatal("a break-glass member was linked")
		}

		r = do(http.MethodPost, "/Users", map[string]any{"userName": "ada@acme.test"})
		wantSCIM(t, r, 201, "")
		uid := r.Body["id"].(string)
		r = do(http.MethodPost, "/Groups", map[string]any{"displayName": "Admins"})
		wantSCIM(t, r, 201, "")
		gid := r.Body["id"].(string)
		apptest.Want(t, e.Backend(http.MethodPut, "/v1/b2b/organizations/"+org+"/members/"+uid,
			map[string]any{"is_breakglass": true}), 200, "")
		wantSCIM(t, do(http.MethodPatch, "/Users/"+uid, patch(map[string]any{"op": "replace", "path": "displayName", "value": "X"})), 400, "mutability")
		wantSCIM(t, do(http.MethodPatch, "/Users/"+uid, patch(map[string]any{"op": "replace", "path": "active", "value": false})), 400, "mutability")
		wantSCIM(t, do(http.MethodDelete, "/Users/"+uid, nil), 400, "mutability")
		wantSCIM(t, do(http.MethodPatch, "/Groups/"+gid, patch(map[string]any{"op": "add", "path": "members",
			"value": []any{map[string]any{"value": uid}}})), 400, "mutability")
		if m := member(t, e, org, uid); m["status"] != "active" || m["name"] != "" {
			t.Fatalf("break-glass member changed: %v %v", m["status"], m["name"])
		}
	})
}

// Linking an invited or pending member makes them active, like a member
// SCIM creates (the identity provider vouches for them), so the User
// resource's active: true is what the member's status says.
func TestLinkingAdmitsInvitedAndPendingMembers(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		org := e.CreateOrg("acme", "NOT_ALLOWED", nil)
		apptest.Want(t, e.Backend(http.MethodPost, "/v1/b2b/organizations/"+org+"/members",
			map[string]any{"email_address": "pat@acme.test", "create_member_as_pending": true}), 200, "")
		apptest.Want(t, e.Backend(http.MethodPost, "/v1/b2b/magic_links/email/invite",
			map[string]any{"organization_id": org, "email_address": "ivy@acme.test"}), 200, "")
		id, token, _ := connection(t, e, org, nil)
		for _, addr := range []string{"pat@acme.test", "ivy@acme.test"} {
			r := scimDo(e, http.MethodPost, id, "/Users", token, map[string]any{"userName": addr})
			wantSCIM(t, r, 201, "")
			if m := member(t, e, org, r.Body["id"].(string)); r.Body["active"] != true || m["status"] != "active" {
				t.Fatalf("linked %s: active %v, status %v", addr, r.Body["active"], m["status"])
			}
		}
	})
}
