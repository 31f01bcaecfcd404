package rbac_test

import (
	"context"
	"net/http"
	"testing"

	"github.com/latchkey/latchkey/internal/apptest"
	"github.com/latchkey/latchkey/internal/connectedapps"
	"github.com/latchkey/latchkey/internal/organization"
	"github.com/latchkey/latchkey/internal/rbac"
)

// The actions the browser SDK documents for a member's connected apps and
// retired addresses (@rbac on getConnectedApps, revokeConnectedApp and
// unlinkRetiredEmail) are ones a custom role may be granted, on
// stytch.member and on stytch.self.
func TestPolicyAcceptsDocumentedMemberActions(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		for _, res := range []string{"stytch.member", "stytch.self"} {
			for _, a := range []string{"get.connected-apps", "revoke.connected-app", "update.info.unlink.retired-email"} {
				_, err := e.App.RBAC.SetCustom(context.Background(), e.Project.Project.ID, rbac.Policy{Roles: []rbac.Role{
					{RoleID: "holder", Permissions: []rbac.Permission{{ResourceID: res, Actions: []string{a}}}}}})
				if err != nil {
					t.Errorf("%s %s: %v", res, a, err)
				}
			}
		}
	})
}

// Another member's connected apps are read with get.connected-apps and
// revoked with revoke.connected-app on stytch.member, each alone; the
// session permission revoke-sessions, which once stood in for both, grants
// neither.
func TestConnectedAppsOfAnotherMemberUseTheirOwnActions(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		grant := func(actions ...string) []rbac.Permission {
			return []rbac.Permission{{ResourceID: "stytch.member", Actions: actions}}
		}
		setPolicy(t, e, rbac.Policy{Roles: []rbac.Role{
			{RoleID: "app-viewer", Permissions: grant("get.connected-apps")},
			{RoleID: "app-revoker", Permissions: grant("revoke.connected-app")},
			{RoleID: "session-revoker", Permissions: grant("revoke-sessions")},
		}})
		acme := e.CreateOrg("acme", "ALL_ALLOWED", nil)
		login := func(email string, roles ...string) string {
			apptest.Want(t, e.Backend(http.MethodPost, "/v1/b2b/organizations/"+acme+"/members",
				map[string]any{"email_address": email, "roles": roles}), 200, "")
			token, _ := e.LoginByEmailOTP(acme, email)
			return token
		}
		viewer, revoker, old := login("val@acme.test", "app-viewer"), login("rex@acme.test", "app-revoker"), login("sam@acme.test", "session-revoker")
		bob := e.CreateMember(acme, "bob@acme.test")
		r := e.Backend(http.MethodPost, "/v1/connected_apps/clients", map[string]any{"client_type": "third_party", "client_name": "Agent"})
		apptest.Want(t, r, 200, "")
		client := r.Body["connected_app"].(map[string]any)["client_id"].(string)
		if err := connectedapps.NewStore(e.App.DB, e.Clock).SaveGrant(context.Background(), e.App.DB,
			connectedapps.Grant{MemberID: bob, OrganizationID: acme, ClientID: client, Scopes: []string{"openid"}}); err != nil {
			t.Fatal(err)
		}
		list := "/b2b/organizations/members/" + bob + "/connected_apps"
		revoke := list + "/" + client + "/revoke"
		backendList := memberPath(acme, bob) + "/connected_apps"

		apptest.Want(t, e.SDK(http.MethodGet, list, nil, old), 403, "unauthorized_action")
		apptest.Want(t, e.BackendAs(http.MethodGet, backendList, nil, organization.MemberSessionHeader, old), 403, "unauthorized_action")
		apptest.Want(t, e.SDK(http.MethodPost, revoke, nil, old), 403, "unauthorized_action")
		apptest.Want(t, e.SDK(http.MethodGet, list, nil, revoker), 403, "unauthorized_action")
		apptest.Want(t, e.SDK(http.MethodPost, revoke, nil, viewer), 403, "unauthorized_action")

		r = e.SDK(http.MethodGet, list, nil, viewer)
		apptest.Want(t, r, 200, "")
		if n := len(r.Data()["connected_apps"].([]any)); n != 1 {
			t.Fatalf("viewer sees %d apps: %s", n, r.Raw)
		}
		apptest.Want(t, e.BackendAs(http.MethodGet, backendList, nil, organization.MemberSessionHeader, viewer), 200, "")
		apptest.Want(t, e.SDK(http.MethodPost, revoke, nil, revoker), 200, "")
		r = e.Backend(http.MethodGet, backendList, nil)
		if apptest.Want(t, r, 200, ""); len(r.Body["connected_apps"].([]any)) != 0 {
			t.Fatalf("grant survived the revoke: %s", r.Raw)
		}
	})
}

// Unlinking another member's retired address takes
// update.info.unlink.retired-email on stytch.member; changing their
// address (update.info.email) does not include it.
func TestUnlinkRetiredEmailUsesItsOwnAction(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		setPolicy(t, e, rbac.Policy{Roles: []rbac.Role{
			{RoleID: "unlinker", Permissions: []rbac.Permission{{ResourceID: "stytch.member", Actions: []string{"update.info.unlink.retired-email"}}}},
			{RoleID: "mailer", Permissions: []rbac.Permission{{ResourceID: "stytch.member", Actions: []string{"update.info.email"}}}},
		}})
		acme := e.CreateOrg("acme", "ALL_ALLOWED", nil)
		login := func(email, role string) string {
			apptest.Want(t, e.Backend(http.MethodPost, "/v1/b2b/organizations/"+acme+"/members",
				map[string]any{"email_address": email, "roles": []string{role}}), 200, "")
			token, _ := e.LoginByEmailOTP(acme, email)
			return token
		}
		unlinker, mailer := login("una@acme.test", "unlinker"), login("mal@acme.test", "mailer")
		vic := e.CreateMember(acme, "vic@acme.test")
		// The backend's address change retires the old one.
		apptest.Want(t, e.Backend(http.MethodPut, memberPath(acme, vic), map[string]any{"email_address": "victor@acme.test"}), 200, "")
		retired := func(m map[string]any) []any { l, _ := m["retired_email_addresses"].([]any); return l }
		member := func() map[string]any {
			return e.Backend(http.MethodGet, "/v1/b2b/organizations/"+acme+"/member?member_id="+vic, nil).Body["member"].(map[string]any)
		}
		if got := retired(member()); len(got) != 1 {
			t.Fatalf("retired addresses before the unlink: %v", got)
		}
		sdkPath := "/b2b/organizations/members/" + vic + "/unlink_retired_email"
		body := map[string]any{"email_address": "vic@acme.test"}

		apptest.Want(t, e.SDK(http.MethodPost, sdkPath, body, mailer), 403, "unauthorized_action")
		apptest.Want(t, e.BackendAs(http.MethodPost, memberPath(acme, vic)+"/unlink_retired_email", body,
			organization.MemberSessionHeader, mailer), 403, "unauthorized_action")
		if got := retired(member()); len(got) != 1 {
			t.Fatalf("a refused unlink removed the address: %v", got)
		}
		apptest.Want(t, e.SDK(http.MethodPost, sdkPath, body, unlinker), 200, "")
		if got := retired(member()); len(got) != 0 {
			t.Fatalf("retired addresses after the unlink: %v", got)
		}
	})
}
