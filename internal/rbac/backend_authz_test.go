package rbac_test

import (
	"net/http"
	"testing"

	"github.com/latchkey/latchkey/internal/apptest"
	"github.com/latchkey/latchkey/internal/organization"
	"github.com/latchkey/latchkey/internal/rbac"
)

// A customer's server acting for a member (the Node client's
// method_options.authorization) gets that member's permissions, through
// the same rule as the SDK face; without the header the project secret
// keeps its full rights.
func TestBackendCallsActForTheMemberSession(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		setPolicy(t, e, rbac.Policy{Roles: []rbac.Role{
			{RoleID: "helpdesk", Permissions: []rbac.Permission{{ResourceID: "stytch.member", Actions: []string{"delete", "update.info.name"}}}},
		}})
		acme := e.CreateOrg("acme", "ALL_ALLOWED", nil)
		other := e.CreateOrg("other", "ALL_ALLOWED", nil)
		member := func(org, email string, roles ...string) (id, token, jwt string) {
			r := e.Backend(http.MethodPost, "/v1/b2b/organizations/"+org+"/members", map[string]any{"email_address": email, "roles": roles})
			apptest.Want(t, r, 200, "")
			token, jwt = e.LoginByEmailOTP(org, email)
			return r.Body["member_id"].(string), token, jwt
		}
		plainID, plain, _ := member(acme, "pat@acme.test")
		helpID, help, helpJWT := member(acme, "hal@acme.test", "helpdesk")
		_, admin, _ := member(acme, "ada@acme.test", "stytch_admin")
		victimID, _, _ := member(acme, "vic@acme.test")
		_, outsider, _ := member(other, "oz@other.test", "stytch_admin")
		as := func(method, path string, body any, token string) apptest.Resp {
			return e.BackendAs(method, path, body, organization.MemberSessionHeader, token)
		}
		orgPath := "/v1/b2b/organizations/" + acme
		victim := orgPath + "/members/" + victimID

		// A plain member may do none of the administration.
		for _, c := range []struct {
			method, path string
			body         any
		}{
			{http.MethodPut, orgPath, map[string]any{"organization_name": "Plain"}},
			{http.MethodDelete, orgPath, nil},
			{http.MethodPost, orgPath + "/members", map[string]any{"email_address": "new@acme.test"}},
			{http.MethodPut, victim, map[string]any{"name": "x"}},
			{http.MethodDelete, victim, nil},
			{http.MethodPut, victim + "/reactivate", nil},
			{http.MethodDelete, victim + "/totp", nil},
			{http.MethodDelete, orgPath + "/members/mfa_phone_numbers/" + victimID, nil},
			{http.MethodPost, "/v1/b2b/organizations/members/search", map[string]any{"organization_ids": []string{acme}}},
			{http.MethodPost, "/v1/b2b/magic_links/email/invite", map[string]any{"organization_id": acme, "email_address": "inv@acme.test"}},
			{http.MethodGet, "/v1/b2b/sso/" + acme, nil},
			{http.MethodPost, "/v1/b2b/sso/oidc/" + acme, map[string]any{"display_name": "x"}},
			{http.MethodPut, "/v1/b2b/sso/saml/" + acme + "/connections/saml-connection-test-none",
				map[string]any{"saml_connection_implicit_role_assignments": []any{map[string]any{"role_id": "stytch_admin"}}}},
			{http.MethodPost, "/v1/b2b/sso/external/" + acme, map[string]any{"external_organization_id": other,
				"external_connection_id": "saml-connection-test-none", "connection_implicit_role_assignments": []any{map[string]any{"role_id": "stytch_admin"}}}},
			{http.MethodPut, "/v1/b2b/sso/external/" + acme + "/connections/external-connection-test-none",
				map[string]any{"external_connection_implicit_role_assignments": []any{map[string]any{"role_id": "stytch_admin"}}}},
			{http.MethodPut, "/v1/b2b/scim/" + acme + "/connection/scim-connection-test-none",
				map[string]any{"scim_group_implicit_role_assignments": []any{map[string]any{"role_id": "stytch_admin", "group_id": "g"}}}},
			{http.MethodGet, orgPath + "/connected_apps", nil},
			{http.MethodPost, victim + "/start_email_update", map[string]any{"email_address": "v2@acme.test"}},
			{http.MethodPost, victim + "/unlink_retired_email", map[string]any{"email_address": "old@acme.test"}},
			{http.MethodPost, "/v1/b2b/passwords/email/require_reset", map[string]any{"organization_id": acme, "member_id": victimID}},
		} {
			r := as(c.method, c.path, c.body, plain)
			if r.Status != 403 || r.ErrType() != "unauthorized_action" {
				t.Errorf("%s %s as a plain member: %d %s", c.method, c.path, r.Status, r.Raw)
			}
		}
		if o := e.Backend(http.MethodGet, orgPath, nil).Body["organization"].(map[string]any); o["organization_name"] == "Plain" {
			t.Fatalf("a refused update changed the organization")
		}

		// Members keep stytch.self on themselves.
		apptest.Want(t, as(http.MethodPut, orgPath+"/members/"+plainID, map[string]any{"name": "Pat"}, plain), 200, "")

		// The helpdesk role renames and deletes others, by token or JWT, and
		// nothing more.
		apptest.Want(t, e.BackendAs(http.MethodPut, victim, map[string]any{"name": "Vic"}, organization.MemberSessionJWTHeader, helpJWT), 200, "")
		apptest.Want(t, as(http.MethodPut, victim, map[string]any{"is_breakglass": true}, help), 403, "unauthorized_action")
		apptest.Want(t, as(http.MethodPut, orgPath, map[string]any{"organization_name": "Help"}, help), 403, "unauthorized_action")
		apptest.Want(t, as(http.MethodDelete, victim, nil, help), 200, "")
		apptest.Want(t, as(http.MethodPut, victim+"/reactivate", nil, help), 403, "unauthorized_action")

		// An admin may administer, except the backend's own bookkeeping.
		apptest.Want(t, as(http.MethodPut, victim+"/reactivate", nil, admin), 200, "")
		apptest.Want(t, as(http.MethodPut, orgPath, map[string]any{"organization_name": "Acme 2"}, admin), 200, "")
		apptest.Want(t, as(http.MethodPut, orgPath, map[string]any{"trusted_metadata": map[string]any{"tier": "gold"}}, admin), 403, "unauthorized_action")
		apptest.Want(t, as(http.MethodPut, victim, map[string]any{"trusted_metadata": map[string]any{"tier": "gold"}}, admin), 403, "unauthorized_action")
		apptest.Want(t, as(http.MethodPost, "/v1/b2b/organizations/members/search", map[string]any{"organization_ids": []string{acme}}, admin), 200, "")
		apptest.Want(t, as(http.MethodGet, "/v1/b2b/sso/"+acme, nil, admin), 200, "")

		// Another organization's member, or its organization in a search,
		// is a tenancy mismatch; a session that does not authenticate fails.
		apptest.Want(t, as(http.MethodDelete, victim, nil, outsider), 403, "tenancy_mismatch")
		apptest.Want(t, as(http.MethodPost, "/v1/b2b/organizations/members/search", map[string]any{"organization_ids": []string{acme, other}}, admin),
			403, "tenancy_mismatch")
		apptest.Want(t, as(http.MethodDelete, victim, nil, "not-a-session"), 404, "session_not_found")

		// sessions/revoke: one's own sessions (stytch.self), others' only
		// with stytch.member revoke-sessions, never across organizations.
		revoke := func(body map[string]any, token string) apptest.Resp {
			return as(http.MethodPost, "/v1/b2b/sessions/revoke", body, token)
		}
		_, victimToken, _ := member(acme, "val@acme.test")
		apptest.Want(t, revoke(map[string]any{"session_token": victimToken}, plain), 403, "unauthorized_action")
		apptest.Want(t, revoke(map[string]any{"member_id": helpID}, plain), 403, "unauthorized_action")
		apptest.Want(t, revoke(map[string]any{"session_token": victimToken}, outsider), 403, "tenancy_mismatch")
		apptest.Want(t, e.Backend(http.MethodPost, "/v1/b2b/sessions/authenticate", map[string]any{"session_token": victimToken}), 200, "")
		apptest.Want(t, revoke(map[string]any{"session_token": victimToken}, admin), 200, "")
		apptest.Want(t, e.Backend(http.MethodPost, "/v1/b2b/sessions/authenticate", map[string]any{"session_token": victimToken}), 404, "session_not_found")
		_, own, _ := member(acme, "ola@acme.test")
		apptest.Want(t, revoke(map[string]any{"session_token": own}, own), 200, "")

		// Removing the role takes the right away at once.
		apptest.Want(t, as(http.MethodPut, victim, map[string]any{"name": "Victor"}, help), 200, "")
		apptest.Want(t, e.Backend(http.MethodPut, orgPath+"/members/"+helpID, map[string]any{"roles": []string{}}), 200, "")
		apptest.Want(t, as(http.MethodPut, victim, map[string]any{"name": "Vico"}, help), 403, "unauthorized_action")

		// Without the header the secret has every right, as before.
		apptest.Want(t, e.Backend(http.MethodPut, orgPath, map[string]any{"trusted_metadata": map[string]any{"tier": "gold"}}), 200, "")
		apptest.Want(t, e.Backend(http.MethodDelete, orgPath, nil), 200, "")
	})
}
