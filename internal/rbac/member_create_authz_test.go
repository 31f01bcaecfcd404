package rbac_test

import (
	"net/http"
	"testing"

	"github.com/latchkey/latchkey/internal/apptest"
	"github.com/latchkey/latchkey/internal/organization"
	"github.com/latchkey/latchkey/internal/rbac"
)

// Creating a break-glass member needs update.settings.is-breakglass on
// stytch.member besides create, on the SDK face as on the backend face
// acting for a member.
func TestCreateBreakglassMemberNeedsTheBreakglassAction(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		setPolicy(t, e, rbac.Policy{Roles: []rbac.Role{
			{RoleID: "recruiter", Permissions: []rbac.Permission{{ResourceID: "stytch.member", Actions: []string{"create"}}}},
			{RoleID: "warden", Permissions: []rbac.Permission{{ResourceID: "stytch.member", Actions: []string{"create", "update.settings.is-breakglass"}}}},
		}})
		acme := e.CreateOrg("acme", "ALL_ALLOWED", nil)
		orgPath := "/v1/b2b/organizations/" + acme
		login := func(email, role string) string {
			apptest.Want(t, e.Backend(http.MethodPost, orgPath+"/members", map[string]any{"email_address": email, "roles": []string{role}}), 200, "")
			token, _ := e.LoginByEmailOTP(acme, email)
			return token
		}
		rex, wes := login("rex@acme.test", "recruiter"), login("wes@acme.test", "warden")
		glass := func(email string) map[string]any {
			return map[string]any{"email_address": email, "is_breakglass": true}
		}

		apptest.Want(t, e.BackendAs(http.MethodPost, orgPath+"/members", glass("b1@acme.test"), organization.MemberSessionHeader, rex),
			403, "unauthorized_action")
		apptest.Want(t, e.SDK(http.MethodPost, "/b2b/organizations/members", glass("b2@acme.test"), rex), 403, "unauthorized_action")
		apptest.Want(t, e.SDK(http.MethodPost, "/b2b/organizations/members", map[string]any{"email_address": "plain@acme.test"}, rex), 200, "")
		r := e.SDK(http.MethodPost, "/b2b/organizations/members", glass("b3@acme.test"), wes)
		apptest.Want(t, r, 200, "")
		if m, _ := r.Data()["member"].(map[string]any); m["is_breakglass"] != true {
			t.Fatalf("warden's break-glass member: %v", m)
		}
		apptest.Want(t, e.BackendAs(http.MethodPost, orgPath+"/members", glass("b4@acme.test"), organization.MemberSessionHeader, wes), 200, "")
	})
}
