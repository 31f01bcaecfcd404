package sso_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/latchkey/latchkey/internal/apptest"
)

// createExternal creates an external connection in orgID using the
// source's connection through the backend, which must succeed.
func createExternal(t *testing.T, e *apptest.Env, orgID, srcOrg, srcConn string, extra map[string]any) map[string]any {
	t.Helper()
	body := map[string]any{"external_organization_id": srcOrg, "external_connection_id": srcConn}
	for k, v := range extra {
		body[k] = v
	}
	r := e.Backend(http.MethodPost, "/v1/b2b/sso/external/"+orgID, body)
	apptest.Want(t, r, 200, "")
	return r.Body["connection"].(map[string]any)
}

// orgAnswer is the backend's organization object.
func orgAnswer(t *testing.T, e *apptest.Env, orgID string) map[string]any {
	t.Helper()
	r := e.Backend(http.MethodGet, "/v1/b2b/organizations/"+orgID, nil)
	apptest.Want(t, r, 200, "")
	return r.Body["organization"].(map[string]any)
}

// externals lists the organization's external connections.
func externals(t *testing.T, e *apptest.Env, orgID string) []any {
	t.Helper()
	r := e.Backend(http.MethodGet, "/v1/b2b/sso/"+orgID, nil)
	apptest.Want(t, r, 200, "")
	return r.Body["external_connections"].([]any)
}

// TestExternalAdmin: the backend face creates, lists, updates and deletes
// external connections, and refuses every invalid one with its catalogue
// error.
func TestExternalAdmin(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		if _, err := e.App.RBAC.SetCustom(context.Background(), e.Project.Project.ID, docsPolicy); err != nil {
			t.Fatal(err)
		}
		s := newSAMLEnv(t, e, nil) // the source: acme's active SAML connection
		target := e.CreateOrg("globex", "NOT_ALLOWED", map[string]any{"email_allowed_domains": []string{"acme.test"}})
		third := e.CreateOrg("initech", "NOT_ALLOWED", nil)
		r := e.Backend(http.MethodPost, "/v1/b2b/sso/oidc/"+s.orgID, map[string]any{"display_name": "Acme OIDC"})
		apptest.Want(t, r, 200, "")
		oidcID := r.Body["connection"].(map[string]any)["connection_id"].(string)
		r = e.Backend(http.MethodPost, "/v1/b2b/sso/saml/"+third, map[string]any{})
		apptest.Want(t, r, 200, "")
		thirdSAML := r.Body["connection"].(map[string]any)["connection_id"].(string)

		path := "/v1/b2b/sso/external/" + target
		role := func(id string) []any { return []any{map[string]any{"role_id": id}} }
		group := func(id, g string) []any { return []any{map[string]any{"role_id": id, "group": g}} }
		for _, c := range []struct {
			name   string
			body   map[string]any
			status int
			err    string
		}{
			{"no organization", map[string]any{"external_connection_id": s.connID}, 400, "invalid_request"},
			{"no connection", map[string]any{"external_organization_id": s.orgID}, 400, "invalid_request"},
			{"own organization", map[string]any{"external_organization_id": target, "external_connection_id": s.connID}, 400,
				"external_organization_id_same_as_organization_id"},
			{"unknown organization", map[string]any{"external_organization_id": "organization-test-00000000-0000-4000-8000-000000000000",
				"external_connection_id": s.connID}, 404, "organization_not_found"},
			{"connection of another organization", map[string]any{"external_organization_id": s.orgID,
				"external_connection_id": thirdSAML}, 404, "sso_connection_not_found"},
			{"unknown role", map[string]any{"external_organization_id": s.orgID, "external_connection_id": s.connID,
				"connection_implicit_role_assignments": role("ghost")}, 400, "invalid_request"},
			{"group without groups attribute", map[string]any{"external_organization_id": s.orgID, "external_connection_id": s.connID,
				"group_implicit_role_assignments": group("editor", "writers")}, 400, "invalid_request"},
			{"roles on an OIDC source", map[string]any{"external_organization_id": s.orgID, "external_connection_id": oidcID,
				"connection_implicit_role_assignments": role("viewer")}, 400, "invalid_request"},
			{"group roles on an OIDC source", map[string]any{"external_organization_id": s.orgID, "external_connection_id": oidcID,
				"group_implicit_role_assignments": group("viewer", "readers")}, 400, "invalid_request"},
		} {
			if r := e.Backend(http.MethodPost, path, c.body); r.Status != c.status || r.ErrType() != c.err {
				t.Errorf("%s: got %d %s, want %d %s", c.name, r.Status, r.Raw, c.status, c.err)
			}
		}
		if n := len(externals(t, e, target)); n != 0 {
			t.Fatalf("a refused create stored %d connections", n)
		}

		// A valid one: named after its source unless named, active as its
		// source is, offered by the organization (with the source's
		// identity provider) and its default as its first active connection.
		c := createExternal(t, e, target, s.orgID, s.connID, map[string]any{"connection_implicit_role_assignments": role("viewer")})
		id := c["connection_id"].(string)
		if !strings.HasPrefix(id, "external-connection-test-") || c["organization_id"] != target ||
			c["external_organization_id"] != s.orgID || c["external_connection_id"] != s.connID ||
			c["display_name"] != "Acme Okta" || c["status"] != "active" ||
			len(c["external_connection_implicit_role_assignments"].([]any)) != 1 ||
			len(c["external_group_implicit_role_assignments"].([]any)) != 0 {
			t.Fatalf("created: %v", c)
		}
		org := orgAnswer(t, e, target)
		active := org["sso_active_connections"].([]any)
		if len(active) != 1 || active[0].(map[string]any)["connection_id"] != id ||
			active[0].(map[string]any)["identity_provider"] != "okta" || org["sso_default_connection_id"] != id {
			t.Fatalf("organization: %v", org)
		}
		// The source's organization is unchanged.
		if got := orgAnswer(t, e, s.orgID)["sso_active_connections"].([]any); len(got) != 1 {
			t.Fatalf("source organization: %v", got)
		}
		// Its id is a connection id the organization's SSO settings take.
		r = e.Backend(http.MethodPut, "/v1/b2b/organizations/"+target, map[string]any{"sso_jit_provisioning": "RESTRICTED",
			"sso_jit_provisioning_allowed_connections": []string{id}, "sso_default_connection_id": id})
		apptest.Want(t, r, 200, "")

		// Discovery offers it for the domain the target organization allows
		// (and a proven member there vouches for).
		e.CreateVerifiedMember(target, "tess@acme.test")
		r = e.SDK(http.MethodGet, "/b2b/sso/discovery/connections?email_address=lin@acme.test", nil, "")
		apptest.Want(t, r, 200, "")
		found := false
		for _, d := range r.Data()["connections"].([]any) {
			found = found || d.(map[string]any)["connection_id"] == id
		}
		if !found {
			t.Fatalf("discovery: %s", r.Raw)
		}

		// One external connection per source and organization (the API
		// family's duplicate_external_sso_connection); none of an external
		// connection.
		apptest.Want(t, e.Backend(http.MethodPost, path, map[string]any{"external_organization_id": s.orgID,
			"external_connection_id": s.connID}), 400, "duplicate_external_sso_connection")
		apptest.Want(t, e.Backend(http.MethodPost, "/v1/b2b/sso/external/"+third, map[string]any{"external_organization_id": target,
			"external_connection_id": id}), 400, "invalid_request")

		// Update: name and the connection's own roles; groups once the
		// source maps a groups attribute.
		upd := path + "/connections/" + id
		apptest.Want(t, e.Backend(http.MethodPut, upd, map[string]any{"display_name": " "}), 400, "invalid_request")
		apptest.Want(t, e.Backend(http.MethodPut, upd, map[string]any{"external_connection_implicit_role_assignments": role("ghost")}), 400, "invalid_request")
		apptest.Want(t, e.Backend(http.MethodPut, upd, map[string]any{"external_group_implicit_role_assignments": group("editor", "writers")}), 400, "invalid_request")
		apptest.Want(t, e.Backend(http.MethodPut, "/v1/b2b/sso/saml/"+s.orgID+"/connections/"+s.connID, map[string]any{
			"attribute_mapping": map[string]any{"email": "mail", "groups": "eduPersonAffiliation"}}), 200, "")
		apptest.Want(t, e.Backend(http.MethodPut, upd, map[string]any{"external_group_implicit_role_assignments": group("editor", "")}), 400, "invalid_request")
		r = e.Backend(http.MethodPut, upd, map[string]any{"display_name": "Acme via Globex",
			"external_group_implicit_role_assignments": group("editor", "writers")})
		apptest.Want(t, r, 200, "")
		c = r.Body["connection"].(map[string]any)
		if c["display_name"] != "Acme via Globex" || len(c["external_group_implicit_role_assignments"].([]any)) != 1 ||
			len(c["external_connection_implicit_role_assignments"].([]any)) != 1 {
			t.Fatalf("updated: %s", r.Raw)
		}
		// The update route is for external connections only, of the
		// caller's organization.
		apptest.Want(t, e.Backend(http.MethodPut, "/v1/b2b/sso/external/"+s.orgID+"/connections/"+s.connID,
			map[string]any{"display_name": "x"}), 404, "sso_connection_not_found")
		apptest.Want(t, e.Backend(http.MethodPut, "/v1/b2b/sso/external/"+third+"/connections/"+id,
			map[string]any{"display_name": "x"}), 404, "sso_connection_not_found")

		list := externals(t, e, target)
		if len(list) != 1 || list[0].(map[string]any)["display_name"] != "Acme via Globex" {
			t.Fatalf("list: %v", list)
		}
		r = e.Backend(http.MethodDelete, "/v1/b2b/sso/"+target+"/connections/"+id, nil)
		apptest.Want(t, r, 200, "")
		org = orgAnswer(t, e, target)
		if len(externals(t, e, target)) != 0 || len(org["sso_active_connections"].([]any)) != 0 || org["sso_default_connection_id"] != nil {
			t.Fatalf("after delete: %v", org)
		}
	})
}

// TestExternalSDKAdmin: on the SDK face the organization is the session's
// and creating or updating an external connection takes stytch.sso
// create or update, as for SAML and OIDC connections.
func TestExternalSDKAdmin(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		s := newSAMLEnv(t, e, nil)
		target := e.CreateOrg("globex", "NOT_ALLOWED", nil)
		e.CreateMember(target, "plain@globex.test")
		plain := e.SessionFor(target, "plain@globex.test")
		e.CreateAdmin(target, "boss@globex.test")
		admin := e.SessionFor(target, "boss@globex.test")
		body := map[string]any{"external_organization_id": s.orgID, "external_connection_id": s.connID, "display_name": "Acme"}

		apptest.Want(t, e.SDK(http.MethodPost, "/b2b/sso/external", body, plain), 403, "unauthorized_action")
		apptest.Want(t, e.SDK(http.MethodPost, "/b2b/sso/external", body, ""), 401, "user_unauthenticated")
		r := e.SDK(http.MethodPost, "/b2b/sso/external", body, admin)
		apptest.Want(t, r, 200, "")
		c := r.Data()["connection"].(map[string]any)
		id := c["connection_id"].(string)
		if c["organization_id"] != target || c["status"] != "active" {
			t.Fatalf("sdk create: %s", r.Raw)
		}
		apptest.Want(t, e.SDK(http.MethodPut, "/b2b/sso/external/"+id, map[string]any{"display_name": "No"}, plain), 403, "unauthorized_action")
		r = e.SDK(http.MethodPut, "/b2b/sso/external/"+id, map[string]any{"display_name": "Acme SSO",
			"external_connection_implicit_role_assignments": []any{map[string]any{"role_id": "stytch_member"}}}, admin)
		apptest.Want(t, r, 200, "")
		if c := r.Data()["connection"].(map[string]any); c["display_name"] != "Acme SSO" {
			t.Fatalf("sdk update: %s", r.Raw)
		}
		r = e.SDK(http.MethodGet, "/b2b/sso", nil, admin)
		apptest.Want(t, r, 200, "")
		if l := r.Data()["external_connections"].([]any); len(l) != 1 || l[0].(map[string]any)["connection_id"] != id {
			t.Fatalf("sdk list: %s", r.Raw)
		}
		apptest.Want(t, e.SDK(http.MethodDelete, "/b2b/sso/"+id, nil, plain), 403, "unauthorized_action")
		apptest.Want(t, e.SDK(http.MethodDelete, "/b2b/sso/"+id, nil, admin), 200, "")
		if len(externals(t, e, target)) != 0 {
			t.Fatal("sdk delete left the connection")
		}
	})
}
