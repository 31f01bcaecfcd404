package rbac_test

import (
	"net/http"
	"testing"

	"github.com/latchkey/latchkey/internal/apptest"
	"github.com/latchkey/latchkey/internal/organization"
	"github.com/latchkey/latchkey/internal/rbac"
)

// A member's own address changes only through start_email_update, which
// proves the new inbox, on both faces: the member update refuses it for
// the caller's own record even when the caller could edit other members'
// addresses, since an unproven address can carry an email-domain role.
func TestMemberCannotSetOwnEmailOnEitherFace(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		setPolicy(t, e, rbac.Policy{Roles: []rbac.Role{
			{RoleID: "mailer", Permissions: []rbac.Permission{{ResourceID: "stytch.member", Actions: []string{"update.info.email"}}}},
		}})
		acme := e.CreateOrg("acme", "ALL_ALLOWED", nil)
		orgPath := "/v1/b2b/organizations/" + acme
		apptest.Want(t, e.Backend(http.MethodPut, orgPath, map[string]any{"rbac_email_implicit_role_assignments": []any{
			map[string]any{"domain": "admins.acme.test", "role_id": "stytch_admin"}}}), 200, "")
		member := func(email string, roles ...string) (string, string, string) {
			r := e.Backend(http.MethodPost, orgPath+"/members", map[string]any{"email_address": email, "roles": roles})
			apptest.Want(t, r, 200, "")
			token, jwt := e.LoginByEmailOTP(acme, email)
			return r.Body["member_id"].(string), token, jwt
		}
		patID, pat, patJWT := member("pat@contractor.test")
		malID, mal, _ := member("mal@contractor.test", "mailer")
		change := func(email string) map[string]any { return map[string]any{"email_address": email} }

		for name, r := range map[string]apptest.Resp{
			"sdk":                      e.SDK(http.MethodPut, "/b2b/organizations/members/"+patID, change("boss1@admins.acme.test"), pat),
			"backend session":          e.BackendAs(http.MethodPut, memberPath(acme, patID), change("boss2@admins.acme.test"), organization.MemberSessionHeader, pat),
			"backend session jwt":      e.BackendAs(http.MethodPut, memberPath(acme, patID), change("boss3@admins.acme.test"), organization.MemberSessionJWTHeader, patJWT),
			"sdk, may edit others":     e.SDK(http.MethodPut, "/b2b/organizations/members/"+malID, change("boss4@admins.acme.test"), mal),
			"backend, may edit others": e.BackendAs(http.MethodPut, memberPath(acme, malID), change("boss5@admins.acme.test"), organization.MemberSessionHeader, mal),
		} {
			if r.Status != 403 || r.Body["error_type"] != "unauthorized_action" {
				t.Errorf("%s: own email change answered %d %s", name, r.Status, r.Raw)
			}
		}
		for _, id := range []string{patID, malID} {
			m := e.Backend(http.MethodGet, orgPath+"/member?member_id="+id, nil).Body["member"].(map[string]any)
			if m["email_address"] != "pat@contractor.test" && m["email_address"] != "mal@contractor.test" || m["is_admin"] != false {
				t.Fatalf("a refused update changed the member: %v", m)
			}
		}
		apptest.Want(t, e.SDK(http.MethodPut, "/b2b/organizations/me", map[string]any{"organization_name": "Mine"}, pat), 403, "unauthorized_action")
		// Another member's address stays the mailer's to change (with a recent factor).
		apptest.Want(t, e.BackendAs(http.MethodPut, memberPath(acme, patID), change("pat2@contractor.test"),
			organization.MemberSessionHeader, mal), 200, "")
	})
}
