package organization_test

import (
	"context"
	"net/http"
	"testing"

	"github.com/latchkey/latchkey/internal/apptest"
	"github.com/latchkey/latchkey/internal/rbac"
)

// Only a member whose address was verified can be reactivated, through
// either face: nobody proved to hold a never-verified address, so its
// deleted member stays deleted, and inviting the address again replaces
// them with a new member (purge.go).
func TestReactivateNeedsAVerifiedEmail(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		org := e.CreateOrg("acme", "NOT_ALLOWED", nil)
		e.CreateAdmin(org, "boss@acme.test")
		admin := e.SessionFor(org, "boss@acme.test")
		members := "/v1/b2b/organizations/" + org + "/members/"

		pat := e.CreateMember(org, "pat@acme.test")
		e.DeleteMember(org, pat)
		r := e.Backend(http.MethodPut, members+pat+"/reactivate", nil)
		apptest.Want(t, r, 400, "email_unverified_for_reactivation")
		apptest.Want(t, e.SDK(http.MethodPut, "/b2b/organizations/members/"+pat+"/reactivate", nil, admin),
			400, "email_unverified_for_reactivation")
		if m := e.MemberByID(org, pat); m["status"] != "deleted" || m["email_address_verified"] != false {
			t.Fatalf("refused reactivation left %v", m)
		}

		// A verified member reactivates as before, through both faces.
		ann := e.CreateMember(org, "ann@acme.test")
		e.SessionFor(org, "ann@acme.test")
		e.DeleteMember(org, ann)
		r = e.Backend(http.MethodPut, members+ann+"/reactivate", nil)
		apptest.Want(t, r, 200, "")
		if m := r.Body["member"].(map[string]any); m["status"] != "active" || m["email_address_verified"] != true {
			t.Fatalf("reactivate answered %s", r.Raw)
		}
		e.DeleteMember(org, ann)
		r = e.SDK(http.MethodPut, "/b2b/organizations/members/"+ann+"/reactivate", nil, admin)
		apptest.Want(t, r, 200, "")
		if m := r.Data()["member"].(map[string]any); m["status"] != "active" {
			t.Fatalf("SDK reactivate answered %s", r.Raw)
		}
		// A member who is not deleted is refused for that, verified or not.
		apptest.Want(t, e.Backend(http.MethodPut, members+ann+"/reactivate", nil), 400, "no_deleted_member_found_for_reactivation")
		bo := e.CreateMember(org, "bo@acme.test")
		apptest.Want(t, e.Backend(http.MethodPut, members+bo+"/reactivate", nil), 400, "no_deleted_member_found_for_reactivation")

		// The way back for pat's address is a new member.
		r = e.Backend(http.MethodPost, "/v1/b2b/magic_links/email/invite", map[string]any{"organization_id": org, "email_address": "pat@acme.test"})
		apptest.Want(t, r, 200, "")
		if id := r.Body["member_id"]; id == pat {
			t.Fatalf("the invite kept the deleted member %s", pat)
		}
		if n := e.Count(`SELECT COUNT(*) FROM members WHERE member_id = $1`, pat); n != 0 {
			t.Fatalf("the deleted member %s remains", pat)
		}
	})
}

// Reactivating needs stytch.member create (as the vendor's admin screens
// treat it) and brings back the roles the member had when deleted: the
// row keeps its explicit roles, stytch_admin included. Nothing keeps the
// last admin from demoting or deleting herself; the project secret is the
// way back (the README's RBAC section says so).
func TestReactivationRestoresRolesAndTheLastAdminMayLeave(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		if _, err := e.App.RBAC.SetCustom(context.Background(), e.Project.Project.ID, rbac.Policy{Roles: []rbac.Role{
			{RoleID: "recruiter", Permissions: []rbac.Permission{{ResourceID: "stytch.member", Actions: []string{"create"}}}},
		}}); err != nil {
			t.Fatal(err)
		}
		org := e.CreateOrg("acme", "NOT_ALLOWED", nil)
		members := "/v1/b2b/organizations/" + org + "/members/"
		boss := e.CreateAdmin(org, "boss@acme.test")
		admin := e.SessionFor(org, "boss@acme.test")
		r := e.Backend(http.MethodPost, "/v1/b2b/organizations/"+org+"/members",
			map[string]any{"email_address": "rita@acme.test", "roles": []string{"recruiter"}})
		apptest.Want(t, r, 200, "")
		rita := e.SessionFor(org, "rita@acme.test")
		e.CreateMember(org, "plain@acme.test")
		plainSession := e.SessionFor(org, "plain@acme.test")

		// The only admin demotes herself, then is made admin again by the
		// backend; then she deletes herself.
		apptest.Want(t, e.SDK(http.MethodPut, "/b2b/organizations/members/"+boss, map[string]any{"roles": []string{}}, admin), 200, "")
		if m := e.MemberByID(org, boss); m["is_admin"] != false {
			t.Fatalf("after demoting herself: %v", m)
		}
		apptest.Want(t, e.Backend(http.MethodPut, members+boss, map[string]any{"roles": []string{"stytch_admin"}}), 200, "")
		admin = e.SessionFor(org, "boss@acme.test")
		apptest.Want(t, e.SDK(http.MethodDelete, "/b2b/organizations/members/"+boss, nil, admin), 200, "")

		// A member without create cannot bring her back; a recruiter
		// (create only) can, and she is an admin again.
		apptest.Want(t, e.SDK(http.MethodPut, "/b2b/organizations/members/"+boss+"/reactivate", nil, plainSession), 403, "unauthorized_action")
		r = e.SDK(http.MethodPut, "/b2b/organizations/members/"+boss+"/reactivate", nil, rita)
		apptest.Want(t, r, 200, "")
		if m := r.Data()["member"].(map[string]any); m["status"] != "active" || m["is_admin"] != true {
			t.Fatalf("reactivated: %v", m)
		}
	})
}
