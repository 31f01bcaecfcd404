package rbac_test

import (
	"net/http"
	"testing"

	"github.com/latchkey/latchkey/internal/apptest"
	"github.com/latchkey/latchkey/internal/rbac"
)

// The connected-app policy fields have their own stytch.organization
// action, which a custom role may name like any other.
func TestCustomRoleMayManageConnectedApps(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		setPolicy(t, e, rbac.Policy{Roles: []rbac.Role{
			{RoleID: "app-keeper", Permissions: []rbac.Permission{{ResourceID: "stytch.organization", Actions: []string{"update.settings.connected-apps"}}}},
		}})
		acme := e.CreateOrg("acme", "ALL_ALLOWED", nil)
		apptest.Want(t, e.Backend(http.MethodPost, "/v1/b2b/organizations/"+acme+"/members",
			map[string]any{"email_address": "kim@acme.test", "roles": []string{"app-keeper"}}), 200, "")
		token, _ := e.LoginByEmailOTP(acme, "kim@acme.test")
		apptest.Want(t, e.SDK(http.MethodPut, "/b2b/organizations/me", map[string]any{
			"first_party_connected_apps_allowed_type": "NOT_ALLOWED", "third_party_connected_apps_allowed_type": "NOT_ALLOWED"}, token), 200, "")
		apptest.Want(t, e.SDK(http.MethodPut, "/b2b/organizations/me", map[string]any{"organization_name": "Kim's"}, token), 403, "unauthorized_action")
		o := e.Backend(http.MethodGet, "/v1/b2b/organizations/"+acme, nil).Body["organization"].(map[string]any)
		if o["first_party_connected_apps_allowed_type"] != "NOT_ALLOWED" || o["third_party_connected_apps_allowed_type"] != "NOT_ALLOWED" {
			t.Fatalf("connected-app policy after the update: %v", o)
		}
	})
}
