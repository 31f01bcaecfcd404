package sso_test

import (
	"context"
	"net/http"
	"testing"

	"github.com/latchkey/latchkey/internal/apptest"
	"github.com/latchkey/latchkey/internal/organization"
)

// newAdminsGroupEnv is a SAML connection of acme under docsPolicy whose
// group "admins" grants stytch_admin.
func newAdminsGroupEnv(t *testing.T, e *apptest.Env) *samlEnv {
	t.Helper()
	if _, err := e.App.RBAC.SetCustom(context.Background(), e.Project.Project.ID, docsPolicy); err != nil {
		t.Fatal(err)
	}
	s := newSAMLEnv(t, e, nil)
	apptest.Want(t, e.Backend(http.MethodPut, "/v1/b2b/sso/saml/"+s.orgID+"/connections/"+s.connID, map[string]any{
		"attribute_mapping":                    map[string]any{"email": "mail", "groups": "eduPersonAffiliation"},
		"saml_group_implicit_role_assignments": []any{map[string]any{"role_id": "stytch_admin", "group": "admins"}}}), 200, "")
	return s
}

// A role granted by a SAML group administers the organization only for a
// session that logged in through that connection: the member's email-code
// session is refused on the SDK face and on the backend face acting for
// it, as its own roles in sessions/authenticate say, while the SAML
// session keeps the role on both.
func TestSAMLGroupRoleAuthorizesOnlyThatConnectionsSessions(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		s := newAdminsGroupEnv(t, e)
		samlToken := s.loginWithGroups("ada@acme.test", "okta-ada", "admins").Body["session_token"].(string)
		emailToken, _ := e.LoginByEmailOTP(s.orgID, "ada@acme.test")
		orgPath := "/v1/b2b/organizations/" + s.orgID
		authz := func(token string) apptest.Resp {
			return e.Backend(http.MethodPost, "/v1/b2b/sessions/authenticate", map[string]any{"session_token": token,
				"authorization_check": map[string]any{"organization_id": s.orgID, "resource_id": "stytch.organization", "action": "update.info.name"}})
		}
		as := func(method, path string, body any, token string) apptest.Resp {
			return e.BackendAs(method, path, body, organization.MemberSessionHeader, token)
		}

		apptest.Want(t, authz(emailToken), 403, "session_authorization_error")
		apptest.Want(t, e.SDK(http.MethodPut, "/b2b/organizations/me", map[string]any{"organization_name": "Email"}, emailToken), 403, "unauthorized_action")
		apptest.Want(t, e.SDK(http.MethodPost, "/b2b/organizations/me/members/search", map[string]any{}, emailToken), 403, "unauthorized_action")
		apptest.Want(t, as(http.MethodPut, orgPath, map[string]any{"organization_name": "Email"}, emailToken), 403, "unauthorized_action")
		apptest.Want(t, e.SDK(http.MethodGet, "/b2b/sso", nil, emailToken), 403, "unauthorized_action")

		apptest.Want(t, authz(samlToken), 200, "")
		apptest.Want(t, e.SDK(http.MethodPut, "/b2b/organizations/me", map[string]any{"organization_name": "SAML"}, samlToken), 200, "")
		apptest.Want(t, e.SDK(http.MethodPost, "/b2b/organizations/me/members/search", map[string]any{}, samlToken), 200, "")
		apptest.Want(t, as(http.MethodPut, orgPath, map[string]any{"organization_name": "SAML 2"}, samlToken), 200, "")
	})
}
