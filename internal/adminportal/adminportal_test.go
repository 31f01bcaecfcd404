package adminportal_test

import (
	"net/http"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/latchkey/latchkey/internal/apptest"
	"github.com/latchkey/latchkey/internal/project"
)

// portalConfig is GET b2b/admin_portal_config's data as the portal reads it.
func portalConfig(t *testing.T, e *apptest.Env, session string) map[string]any {
	t.Helper()
	r := e.SDK(http.MethodGet, "/b2b/admin_portal_config", nil, session)
	apptest.Want(t, r, 200, "")
	d := r.Data()
	delete(d, "request_id")
	delete(d, "status_code")
	return d
}

func config(sso, create bool) map[string]any {
	return map[string]any{
		"sso_config":          map[string]any{"sso_enabled": sso, "can_create_saml_connection": create, "can_create_oidc_connection": create},
		"organization_config": map[string]any{"mfa_controls_enabled": true},
		"scim_config":         map[string]any{"scim_enabled": true},
	}
}

// The portal shows SSO when the project offers SSO logins, and its "new
// connection" button only to a member whose roles permit stytch.sso:create
// (the admin, or a custom role granting it; not a plain member).
func TestConfigFollowsProductsAndRoles(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		org := e.CreateOrg("acme", "NOT_ALLOWED", nil)
		e.CreateAdmin(org, "admin@acme.test")
		mule := e.CreateMember(org, "mule@acme.test")
		admin, plain := e.SessionFor(org, "admin@acme.test"), e.SessionFor(org, "mule@acme.test")

		if diff := cmp.Diff(config(true, true), portalConfig(t, e, admin)); diff != "" {
			t.Errorf("admin (-want +got):\n%s", diff)
		}
		if diff := cmp.Diff(config(true, false), portalConfig(t, e, plain)); diff != "" {
			t.Errorf("plain member (-want +got):\n%s", diff)
		}

		// An organization role granting stytch.sso:create is enough.
		apptest.Want(t, e.Backend(http.MethodPut, "/v1/b2b/rbac/organizations/"+org, map[string]any{"org_policy": map[string]any{
			"roles": []any{map[string]any{"role_id": "sso_manager", "permissions": []any{
				map[string]any{"resource_id": "stytch.sso", "actions": []string{"create", "get"}}}}}}}), 200, "")
		apptest.Want(t, e.Backend(http.MethodPut, "/v1/b2b/organizations/"+org+"/members/"+mule,
			map[string]any{"roles": []string{"sso_manager"}}), 200, "")
		if diff := cmp.Diff(config(true, true), portalConfig(t, e, plain)); diff != "" {
			t.Errorf("member with sso_manager (-want +got):\n%s", diff)
		}

		// Without the SSO product no one may create connections: the portal
		// says SSO is not supported.
		products := []string{"emailOtp", "emailMagicLinks"}
		if _, err := e.App.Projects.Update(t.Context(), e.Project.Project.ID, project.Update{Products: &products}); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(config(false, false), portalConfig(t, e, admin)); diff != "" {
			t.Errorf("without the sso product (-want +got):\n%s", diff)
		}
	})
}

// Only a logged-in member has a portal: without a session the call is
// refused as the SDK expects of a logged-out caller.
func TestConfigNeedsASession(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		apptest.Want(t, e.SDK(http.MethodGet, "/b2b/admin_portal_config", nil, ""), 401, "user_unauthenticated")
		apptest.Want(t, e.SDK(http.MethodGet, "/b2b/admin_portal_config", nil, "not-a-session-token"), 404, "session_not_found")
	})
}
