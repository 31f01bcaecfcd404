package organization_test

import (
	"net/http"
	"slices"
	"testing"

	"github.com/latchkey/latchkey/internal/apptest"
)

// An email-domain role is held only while the member's address is
// verified. A member an admin creates at the domain holds none until
// their first login proves the address; when an update changes the
// address, the role goes with the proof and comes back when the new
// address is proven. member.roles, is_admin and the members search's
// member_roles filter agree throughout.
func TestEmailDomainRoleNeedsAVerifiedAddress(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		acme := e.CreateOrg("acme", "NOT_ALLOWED", map[string]any{"rbac_email_implicit_role_assignments": []any{
			map[string]any{"role_id": "stytch_admin", "domain": "acme.test"}}})
		ann := e.CreateMember(acme, "ann@acme.test")
		want := func(step string, admin bool) {
			t.Helper()
			m := e.MemberByID(acme, ann)
			roles, found := []string{"stytch_member"}, []string(nil)
			if admin {
				roles, found = []string{"stytch_admin", "stytch_member"}, []string{m["email_address"].(string)} // roleIDs sorts
			}
			if m["is_admin"] != admin || !slices.Equal(roleIDs(m), roles) {
				t.Fatalf("%s: verified %v, is_admin %v, roles %v", step, m["email_address_verified"], m["is_admin"], roleIDs(m))
			}
			got, _ := e.EmailsOf(map[string]any{"organization_ids": []string{acme},
				"query": apptest.Query("AND", apptest.Filter("member_roles", []string{"stytch_admin"}))["query"]})
			if !slices.Equal(got, found) {
				t.Fatalf("%s: member_roles stytch_admin finds %v, want %v", step, got, found)
			}
		}
		want("created, never logged in", false)
		d := e.EmailLogin(acme, "ann@acme.test")
		if m := apptest.MemberOf(d); m["is_admin"] != true {
			t.Fatalf("the login that proves the address answers is_admin %v", m["is_admin"])
		}
		want("after her first login", true)

		r := e.Backend(http.MethodPut, "/v1/b2b/organizations/"+acme+"/members/"+ann, map[string]any{"email_address": "ann.b@acme.test"})
		apptest.Want(t, r, 200, "")
		if m := r.Body["member"].(map[string]any); m["email_address_verified"] != false || m["is_admin"] != false {
			t.Fatalf("update to a new address answers %s", r.Raw)
		}
		want("address changed, not yet proven", false)
		e.EmailLogin(acme, "ann.b@acme.test")
		want("new address proven", true)
	})
}
