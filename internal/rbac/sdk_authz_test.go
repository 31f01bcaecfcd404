package rbac_test

import (
	"context"
	"net/http"
	"testing"

	"github.com/latchkey/latchkey/internal/apptest"
	"github.com/latchkey/latchkey/internal/rbac"
)

// The SDK face's administration calls are authorized by the policy, not
// by an admin flag: a custom role may do exactly what its permissions
// list, each organization field and member field needing its own action;
// members keep the stytch.self rights on themselves.
func TestSDKCallsFollowThePolicy(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		perm := func(res string, actions ...string) []rbac.Permission {
			return []rbac.Permission{{ResourceID: res, Actions: actions}}
		}
		setPolicy(t, e, rbac.Policy{Roles: []rbac.Role{
			{RoleID: "helpdesk", Permissions: perm("stytch.member", "delete", "update.info.name", "create")},
			{RoleID: "brander", Permissions: perm("stytch.organization", "update.info.name", "update.info.logo-url")},
		}})
		acme := e.CreateOrg("acme", "ALL_ALLOWED", nil)
		member := func(email string, roles ...string) (string, string) {
			r := e.Backend(http.MethodPost, "/v1/b2b/organizations/"+acme+"/members", map[string]any{"email_address": email, "roles": roles})
			apptest.Want(t, r, 200, "")
			tok, _ := e.LoginByEmailOTP(acme, email)
			return r.Body["member_id"].(string), tok
		}
		plainID, plain := member("pat@acme.test")
		helpID, help := member("hal@acme.test", "helpdesk")
		_, brand := member("bea@acme.test", "brander")
		victimID, _ := member("vic@acme.test")
		otherID, _ := member("oli@acme.test")

		// Organization settings: one action per field.
		apptest.Want(t, e.SDK(http.MethodPut, "/b2b/organizations/me", map[string]any{"organization_name": "Acme 2"}, brand), 200, "")
		apptest.Want(t, e.SDK(http.MethodPut, "/b2b/organizations/me", map[string]any{"organization_name": "Acme 3", "mfa_policy": "REQUIRED_FOR_ALL"}, brand),
			403, "unauthorized_action")
		apptest.Want(t, e.SDK(http.MethodPut, "/b2b/organizations/me", map[string]any{"organization_name": "Acme 4"}, plain), 403, "unauthorized_action")
		apptest.Want(t, e.SDK(http.MethodDelete, "/b2b/organizations/me", nil, brand), 403, "unauthorized_action")
		o := e.Backend(http.MethodGet, "/v1/b2b/organizations/"+acme, nil).Body["organization"].(map[string]any)
		if o["organization_name"] != "Acme 2" || o["mfa_policy"] != "OPTIONAL" {
			t.Fatalf("a refused update changed the organization: %v", o)
		}

		// Members: helpdesk renames and deletes others, but cannot grant roles.
		apptest.Want(t, e.SDK(http.MethodPut, "/b2b/organizations/members/"+victimID, map[string]any{"name": "Vic"}, help), 200, "")
		apptest.Want(t, e.SDK(http.MethodPut, "/b2b/organizations/members/"+victimID, map[string]any{"is_breakglass": true}, help), 403, "unauthorized_action")
		apptest.Want(t, e.SDK(http.MethodPut, "/b2b/organizations/members/"+helpID, map[string]any{"roles": []string{"stytch_admin"}}, help),
			403, "unauthorized_action")
		apptest.Want(t, e.SDK(http.MethodPut, "/b2b/organizations/members/"+victimID, map[string]any{"name": "x"}, plain), 403, "unauthorized_action")
		apptest.Want(t, e.SDK(http.MethodPut, "/b2b/organizations/members/"+victimID, map[string]any{}, plain), 403, "unauthorized_action")
		apptest.Want(t, e.SDK(http.MethodDelete, "/b2b/organizations/members/"+victimID, nil, plain), 403, "unauthorized_action")
		apptest.Want(t, e.SDK(http.MethodDelete, "/b2b/organizations/members/"+victimID, nil, help), 200, "")
		apptest.Want(t, e.SDK(http.MethodPut, "/b2b/organizations/members/"+victimID+"/reactivate", nil, plain), 403, "unauthorized_action")
		apptest.Want(t, e.SDK(http.MethodPut, "/b2b/organizations/members/"+victimID+"/reactivate", nil, help), 200, "")
		apptest.Want(t, e.SDK(http.MethodPost, "/b2b/organizations/members", map[string]any{"email_address": "new@acme.test"}, help), 200, "")
		apptest.Want(t, e.SDK(http.MethodPost, "/b2b/organizations/members", map[string]any{"email_address": "new2@acme.test", "roles": []string{"helpdesk"}}, help),
			403, "unauthorized_action")
		apptest.Want(t, e.SDK(http.MethodPost, "/b2b/organizations/me/members/search", map[string]any{}, help), 403, "unauthorized_action")
		// MFA factor deletion of another member needs its own action.
		apptest.Want(t, e.SDK(http.MethodDelete, "/b2b/organizations/members/totp/"+otherID, nil, help), 403, "unauthorized_action")
		apptest.Want(t, e.SDK(http.MethodDelete, "/b2b/organizations/members/mfa_phone_numbers/"+otherID, nil, plain), 403, "unauthorized_action")

		// Self: stytch.self rights, but not one's own email address or roles.
		apptest.Want(t, e.SDK(http.MethodPut, "/b2b/organizations/members/"+plainID, map[string]any{"name": "Pat"}, plain), 200, "")
		apptest.Want(t, e.SDK(http.MethodPut, "/b2b/organizations/members/"+plainID, map[string]any{"email_address": "p2@acme.test"}, plain),
			403, "unauthorized_action")
		apptest.Want(t, e.SDK(http.MethodDelete, "/b2b/organizations/members/"+plainID, nil, plain), 200, "")
	})
}

// An SDK invitation that names roles assigns them, so it needs
// update.settings.roles on stytch.member as well as create: a role that
// may only create members cannot invite someone (say, another address of
// its own) as an administrator.
func TestSDKInviteWithRolesNeedsTheRolesAction(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		setPolicy(t, e, rbac.Policy{Roles: []rbac.Role{
			{RoleID: "recruiter", Permissions: []rbac.Permission{{ResourceID: "stytch.member", Actions: []string{"create"}}}},
		}})
		acme := e.CreateOrg("acme", "ALL_ALLOWED", nil)
		r := e.Backend(http.MethodPost, "/v1/b2b/organizations/"+acme+"/members", map[string]any{"email_address": "rex@acme.test",
			"roles": []string{"recruiter"}})
		apptest.Want(t, r, 200, "")
		tok, _ := e.LoginByEmailOTP(acme, "rex@acme.test")
		invite := func(email string, roles []string) apptest.Resp {
			body := map[string]any{"email_address": email}
			if roles != nil {
				body["roles"] = roles
			}
			return e.SDK(http.MethodPost, "/b2b/magic_links/email/invite", body, tok)
		}

		apptest.Want(t, invite("boss@acme.test", []string{"stytch_admin"}), 403, "unauthorized_action")
		var n int
		if err := e.App.DB.Read().QueryRowContext(context.Background(), `SELECT COUNT(*) FROM members WHERE email_address = $1`,
			"boss@acme.test").Scan(&n); err != nil || n != 0 {
			t.Fatalf("a refused invitation created %d members (%v)", n, err)
		}
		apptest.Want(t, invite("new@acme.test", nil), 200, "")
	})
}
