package rbac_test

import (
	"net/http"
	"testing"

	"github.com/latchkey/latchkey/internal/apptest"
	"github.com/latchkey/latchkey/internal/organization"
)

// A role held only through an SSO connection or group authorizes nothing
// for a session that did not log in through that connection, on the SDK
// face and on the backend face acting for the session alike, just as the
// session's own roles (sessions/authenticate) leave it out. Direct and
// email-domain roles count for every login.
func TestSSOOnlyRolesDoNotAuthorizeOtherLogins(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		setPolicy(t, e, docsPolicy)
		e.App.Orgs.AddImplicitRoleSource(ssoSource{}) // sam@acme.test: stytch_admin through a SAML group
		acme := e.CreateOrg("acme", "ALL_ALLOWED", nil)
		orgPath := "/v1/b2b/organizations/" + acme
		token, _ := e.LoginByEmailOTP(acme, "sam@acme.test")
		rename := map[string]any{"organization_name": "Sam's"}
		search := map[string]any{"organization_ids": []string{acme}}
		as := func(method, path string, body any) apptest.Resp {
			return e.BackendAs(method, path, body, organization.MemberSessionHeader, token)
		}

		apptest.Want(t, check(e, token, acme, "stytch.organization", "update.info.name"), 403, "session_authorization_error")
		apptest.Want(t, e.SDK(http.MethodPut, "/b2b/organizations/me", rename, token), 403, "unauthorized_action")
		apptest.Want(t, e.SDK(http.MethodPost, "/b2b/organizations/me/members/search", map[string]any{}, token), 403, "unauthorized_action")
		apptest.Want(t, as(http.MethodPut, orgPath, rename), 403, "unauthorized_action")
		apptest.Want(t, as(http.MethodPost, "/v1/b2b/organizations/members/search", search), 403, "unauthorized_action")
		apptest.Want(t, as(http.MethodGet, "/v1/b2b/sso/"+acme, nil), 403, "unauthorized_action")

		// An email-domain assignment counts for the same email session...
		apptest.Want(t, e.Backend(http.MethodPut, orgPath, map[string]any{"rbac_email_implicit_role_assignments": []any{
			map[string]any{"domain": "acme.test", "role_id": "stytch_admin"}}}), 200, "")
		apptest.Want(t, e.SDK(http.MethodPut, "/b2b/organizations/me", rename, token), 200, "")
		apptest.Want(t, as(http.MethodPost, "/v1/b2b/organizations/members/search", search), 200, "")
		// ...and so does a direct one, once the domain grants nothing.
		apptest.Want(t, e.Backend(http.MethodPut, orgPath, map[string]any{"rbac_email_implicit_role_assignments": []any{}}), 200, "")
		apptest.Want(t, as(http.MethodPut, orgPath, rename), 403, "unauthorized_action")
		r := e.Backend(http.MethodGet, orgPath+"/member?email_address=sam@acme.test", nil)
		apptest.Want(t, e.Backend(http.MethodPut, memberPath(acme, r.Body["member_id"].(string)),
			map[string]any{"roles": []string{"stytch_admin"}}), 200, "")
		apptest.Want(t, e.SDK(http.MethodPost, "/b2b/organizations/me/members/search", map[string]any{}, token), 200, "")
		apptest.Want(t, as(http.MethodPut, orgPath, rename), 200, "")
	})
}
