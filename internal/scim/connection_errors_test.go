package scim_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/latchkey/latchkey/internal/apptest"
)

// A connection's refused fields answer the vendor's error types (those of
// the SDKs' StytchAPIErrorType), on both faces, naming the field, and a
// refused update changes nothing.
func TestConnectionFieldsAreRefusedInTheVendorsTypes(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		org := e.CreateOrg("acme", "NOT_ALLOWED", nil)
		e.CreateAdmin(org, "admin@acme.test")
		admin := e.SessionFor(org, "admin@acme.test")
		long := strings.Repeat("n", 257)
		wantField := func(r apptest.Resp, status int, errType, field string) {
			t.Helper()
			apptest.Want(t, r, status, errType)
			if d, _ := r.Body["error_details"].(map[string]any); d["field"] != field {
				t.Fatalf("error_details = %v, want field %s", r.Body["error_details"], field)
			}
		}
		create := "/v1/b2b/scim/" + org + "/connection"
		wantField(e.Backend(http.MethodPost, create, map[string]any{"identity_provider": "aol"}), 400, "invalid_scim_idp", "identity_provider")
		wantField(e.SDK(http.MethodPost, "/b2b/scim", map[string]any{"identity_provider": "aol"}, admin), 400, "invalid_scim_idp", "identity_provider")
		wantField(e.Backend(http.MethodPost, create, map[string]any{"display_name": long}), 400, "invalid_display_name", "display_name")
		wantField(e.SDK(http.MethodPost, "/b2b/scim", map[string]any{"display_name": long}, admin), 400, "invalid_display_name", "display_name")
		// A direction override reorders what the admin portal shows.
		wantField(e.Backend(http.MethodPost, create, map[string]any{"display_name": "Okta\u202e"}), 400, "invalid_display_name", "display_name")
		wantField(e.SDK(http.MethodPost, "/b2b/scim", map[string]any{"display_name": "\u2067Okta\u2069"}, admin), 400, "invalid_display_name", "display_name")

		id, token, _ := connection(t, e, org, map[string]any{"display_name": "Okta", "identity_provider": "okta"})
		gid := scimDo(e, http.MethodPost, id, "/Groups", token, map[string]any{"displayName": "Engineering"}).Body["id"].(string)
		// Another organization's connection has a group too; it is not this
		// connection's.
		other := e.CreateOrg("globex", "NOT_ALLOWED", nil)
		oid, otoken, _ := connection(t, e, other, nil)
		foreign := scimDo(e, http.MethodPost, oid, "/Groups", otoken, map[string]any{"displayName": "Engineering"}).Body["id"].(string)

		update := create + "/" + id
		assign := func(as ...map[string]any) map[string]any {
			l := make([]any, len(as))
			for i, a := range as {
				l[i] = a
			}
			return map[string]any{"scim_group_implicit_role_assignments": l}
		}
		const field = "scim_group_implicit_role_assignments"
		for _, c := range []struct {
			name, errType, field string
			body                 map[string]any
		}{
			{"unknown identity provider", "invalid_scim_idp", "identity_provider", map[string]any{"identity_provider": "aol"}},
			{"display name too long", "invalid_display_name", "display_name", map[string]any{"display_name": long}},
			{"display name with a direction mark", "invalid_display_name", "display_name", map[string]any{"display_name": "\u200fOkta"}},
			{"no group_id", "scim_group_role_assignment_does_not_contain_group_id", field,
				assign(map[string]any{"role_id": "stytch_admin", "group_id": gid}, map[string]any{"role_id": "stytch_admin"})},
			{"blank group_id", "scim_group_role_assignment_does_not_contain_group_id", field,
				assign(map[string]any{"role_id": "stytch_admin", "group_id": " "})},
			{"no role_id", "empty_rbac_role_id", field, assign(map[string]any{"group_id": gid})},
			{"unknown group", "scim_group_role_assignment_group_does_not_exist", field,
				assign(map[string]any{"role_id": "stytch_admin", "group_id": "scim-group-test-nope"})},
			{"another connection's group", "scim_group_role_assignment_group_does_not_exist", field,
				assign(map[string]any{"role_id": "stytch_admin", "group_id": foreign})},
		} {
			t.Run(c.name, func(t *testing.T) {
				wantField(e.Backend(http.MethodPut, update, c.body), 400, c.errType, c.field)
				wantField(e.SDK(http.MethodPut, "/b2b/scim/"+id, c.body, admin), 400, c.errType, c.field)
			})
		}
		got := e.Backend(http.MethodGet, create, nil).Body["connection"].(map[string]any)
		if got["display_name"] != "Okta" || got["identity_provider"] != "okta" || len(got["scim_group_implicit_role_assignments"].([]any)) != 0 {
			t.Fatalf("a refused update changed the connection: %v", got)
		}
	})
}
