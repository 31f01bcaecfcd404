package organization_test

import (
	"fmt"
	"net/http"
	"reflect"
	"slices"
	"testing"

	"github.com/latchkey/latchkey/internal/apptest"
	"github.com/latchkey/latchkey/internal/organization"
)

// wantFieldRefused checks a 400 invalid_request naming field.
func wantFieldRefused(t *testing.T, r apptest.Resp, field string) {
	t.Helper()
	apptest.Want(t, r, 400, "invalid_request")
	details, _ := r.Body["error_details"].(map[string]any)
	if details["field"] != field {
		t.Fatalf("refusal names %v, want field %s: %s", details, field, r.Raw)
	}
}

// Every organization setting list has a cap: one entry over it is a 400
// naming the field, on create and on update (backend and the admin's SDK
// update), and nothing is written; at the cap the list is stored, its
// repeats merged.
func TestSettingsListCaps(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		org := e.CreateOrg("acme", "ALL_ALLOWED", map[string]any{"email_allowed_domains": []string{"acme.test"}})
		tok, _, admin := e.Login(org, "ada@acme.test")
		apptest.Want(t, e.Backend(http.MethodPut, "/v1/b2b/organizations/"+org+"/members/"+admin,
			map[string]any{"roles": []string{"stytch_admin"}}), 200, "")
		get := func(t *testing.T) map[string]any {
			t.Helper()
			r := e.Backend(http.MethodGet, "/v1/b2b/organizations/"+org, nil)
			apptest.Want(t, r, 200, "")
			return r.Body["organization"].(map[string]any)
		}
		ids := func(n int) []string { return values("id-%d", n) }
		assignments := func(n int) []any {
			out := make([]any, n)
			for i := range out {
				out[i] = map[string]any{"role_id": "stytch_admin", "domain": fmt.Sprintf("r%d.test", i)}
			}
			return out
		}
		dup := func(v string, n int) []string { return slices.Repeat([]string{v}, n) }

		for _, tc := range []struct {
			field string
			over  any
			extra map[string]any
			sdk   bool // the SDK face may set it too
		}{
			{"email_allowed_domains", values("d%d.test", organization.MaxSettingsDomains+1), nil, true},
			{"claimed_email_domains", values("c%d.test", organization.MaxSettingsDomains+1), nil, false},
			{"rbac_email_implicit_role_assignments", assignments(organization.MaxSettingsDomains + 1), nil, true},
			{"sso_jit_provisioning_allowed_connections", ids(organization.MaxSettingsIDs + 1), map[string]any{"sso_jit_provisioning": "RESTRICTED"}, true},
			{"allowed_first_party_connected_apps", ids(organization.MaxSettingsIDs + 1), map[string]any{"first_party_connected_apps_allowed_type": "RESTRICTED"}, true},
			{"allowed_third_party_connected_apps", ids(organization.MaxSettingsIDs + 1), map[string]any{"third_party_connected_apps_allowed_type": "RESTRICTED"}, true},
			{"allowed_auth_methods", dup("sso", organization.MaxSettingsMethods+1), map[string]any{"auth_methods": "RESTRICTED"}, true},
			{"allowed_mfa_methods", dup("totp", organization.MaxSettingsMethods+1), map[string]any{"mfa_methods": "RESTRICTED"}, true},
			{"allowed_oauth_tenants", map[string]any{"slack": ids(organization.MaxSettingsIDs + 1)}, map[string]any{"oauth_tenant_jit_provisioning": "RESTRICTED"}, true},
		} {
			t.Run(tc.field, func(t *testing.T) {
				before := get(t)
				body := map[string]any{tc.field: tc.over}
				for k, v := range tc.extra {
					body[k] = v
				}
				wantFieldRefused(t, e.Backend(http.MethodPut, "/v1/b2b/organizations/"+org, body), tc.field)
				if tc.sdk {
					wantFieldRefused(t, e.SDK(http.MethodPut, "/b2b/organizations/me", body, tok), tc.field)
				}
				body["organization_name"], body["organization_slug"] = "Over", "over-"+fmt.Sprint(len(tc.field))
				wantFieldRefused(t, e.Backend(http.MethodPost, "/v1/b2b/organizations", body), tc.field)
				if after := get(t); !reflect.DeepEqual(after, before) {
					t.Fatalf("a refused update changed the organization:\n%v\n%v", before, after)
				}
			})
		}
		r := e.Backend(http.MethodPost, "/v1/b2b/organizations/search", apptest.Query("AND", apptest.Filter("organization_name_fuzzy", "Over")))
		if r.Status != 200 || r.Body["results_metadata"].(map[string]any)["total"] != float64(0) {
			t.Fatalf("a refused create left an organization: %s", r.Raw)
		}

		// At the cap, stored with repeats merged.
		domains := append(values("d%d.test", organization.MaxSettingsDomains-1), "D0.test")
		apps := append(ids(organization.MaxSettingsIDs-1), "id-0")
		r = e.Backend(http.MethodPut, "/v1/b2b/organizations/"+org, map[string]any{"email_allowed_domains": domains,
			"first_party_connected_apps_allowed_type": "RESTRICTED", "allowed_first_party_connected_apps": apps,
			"auth_methods": "RESTRICTED", "allowed_auth_methods": dup("sso", organization.MaxSettingsMethods)})
		apptest.Want(t, r, 200, "")
		o := r.Body["organization"].(map[string]any)
		if len(o["email_allowed_domains"].([]any)) != organization.MaxSettingsDomains-1 ||
			len(o["allowed_first_party_connected_apps"].([]any)) != organization.MaxSettingsIDs-1 ||
			!reflect.DeepEqual(o["allowed_auth_methods"], []any{"sso"}) {
			t.Fatalf("lists at the cap: %s", r.Raw)
		}
	})
}

// A member's roles: more than MaxMemberRoles is a 400 naming roles, on
// create and update, before any role is looked up, and nothing changes.
func TestMemberRolesCap(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		org := e.CreateOrg("acme", "ALL_ALLOWED", nil)
		id := e.CreateMember(org, "ada@acme.test")
		apptest.Want(t, e.Backend(http.MethodPut, "/v1/b2b/organizations/"+org+"/members/"+id,
			map[string]any{"roles": []string{"stytch_admin"}}), 200, "")
		over := append(slices.Repeat([]string{"stytch_admin"}, organization.MaxMemberRoles), "stytch_admin")
		wantFieldRefused(t, e.Backend(http.MethodPut, "/v1/b2b/organizations/"+org+"/members/"+id, map[string]any{"roles": over}), "roles")
		wantFieldRefused(t, e.Backend(http.MethodPut, "/v1/b2b/organizations/"+org+"/members/"+id, map[string]any{"roles": values("r%d", 5000)}), "roles")
		wantFieldRefused(t, e.Backend(http.MethodPost, "/v1/b2b/organizations/"+org+"/members",
			map[string]any{"email_address": "bob@acme.test", "roles": over}), "roles")
		if m := e.MemberByID(org, id); m["is_admin"] != true {
			t.Fatalf("a refused update changed the roles: %v", m["roles"])
		}
		if n := e.Count(`SELECT COUNT(*) FROM members WHERE email_address = $1`, "bob@acme.test"); n != 0 {
			t.Fatalf("a refused create left %d members", n)
		}
		// At the cap, repeats merge.
		r := e.Backend(http.MethodPut, "/v1/b2b/organizations/"+org+"/members/"+id, map[string]any{"roles": over[1:]})
		apptest.Want(t, r, 200, "")
	})
}
