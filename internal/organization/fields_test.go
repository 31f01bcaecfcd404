package organization_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/latchkey/latchkey/internal/apptest"
)

func TestOrganizationEveryField(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		full := map[string]any{
			"organization_name":                        "Full Org",
			"organization_slug":                        "full-org",
			"organization_external_id":                 "ext-42",
			"organization_logo_url":                    "https://cdn.customer.test/logo.png",
			"trusted_metadata":                         map[string]any{"plan": "gold"},
			"sso_jit_provisioning":                     "RESTRICTED",
			"sso_jit_provisioning_allowed_connections": []any{"saml-connection-test-1"},
			"email_allowed_domains":                    []any{"full.test"},
			"email_jit_provisioning":                   "RESTRICTED",
			"email_invites":                            "RESTRICTED",
			"oauth_tenant_jit_provisioning":            "RESTRICTED",
			"allowed_oauth_tenants":                    map[string]any{"slack": []any{"T123"}},
			"auth_methods":                             "RESTRICTED",
			"allowed_auth_methods":                     []any{"sso", "google_oauth"},
			"mfa_methods":                              "RESTRICTED",
			"allowed_mfa_methods":                      []any{"totp"},
			"mfa_policy":                               "REQUIRED_FOR_ALL",
			"rbac_email_implicit_role_assignments":     []any{map[string]any{"role_id": "stytch_admin", "domain": "full.test"}},
			"first_party_connected_apps_allowed_type":  "RESTRICTED",
			"allowed_first_party_connected_apps":       []any{"connected-app-test-1"},
			"third_party_connected_apps_allowed_type":  "NOT_ALLOWED",
			"allowed_third_party_connected_apps":       []any{},
		}
		r := e.Backend(http.MethodPost, "/v1/b2b/organizations", full)
		if r.Status != 200 {
			t.Fatalf("create: %s", r.Raw)
		}
		id := r.Body["organization"].(map[string]any)["organization_id"].(string)
		got := e.Backend(http.MethodGet, "/v1/b2b/organizations/"+id, nil).Body["organization"].(map[string]any)
		for k, v := range full {
			if diff := cmp.Diff(v, got[k]); diff != "" {
				t.Errorf("%s round trip (-sent +stored):\n%s", k, diff)
			}
		}
		if conns, ok := got["sso_active_connections"].([]any); !ok || len(conns) != 0 {
			t.Errorf("sso_active_connections = %v, want []", got["sso_active_connections"])
		}
		if v, ok := got["scim_active_connection"]; !ok || v != nil {
			t.Errorf("scim_active_connection = %v, want null", v)
		}

		// A bare organization gets the documented defaults.
		bare := e.Backend(http.MethodPost, "/v1/b2b/organizations", map[string]any{"organization_name": "Bare"}).Body["organization"].(map[string]any)
		for k, v := range map[string]any{"organization_slug": "bare", "sso_default_connection_id": nil, "sso_jit_provisioning": "ALL_ALLOWED",
			"email_jit_provisioning": "NOT_ALLOWED", "email_invites": "ALL_ALLOWED", "oauth_tenant_jit_provisioning": "NOT_ALLOWED",
			"auth_methods": "ALL_ALLOWED", "mfa_methods": "ALL_ALLOWED", "mfa_policy": "OPTIONAL",
			"first_party_connected_apps_allowed_type": "ALL_ALLOWED", "third_party_connected_apps_allowed_type": "ALL_ALLOWED"} {
			if !cmp.Equal(bare[k], v) {
				t.Errorf("default %s = %v, want %v", k, bare[k], v)
			}
		}
		for _, k := range []string{"custom_roles", "sso_jit_provisioning_allowed_connections", "email_allowed_domains", "allowed_auth_methods",
			"allowed_mfa_methods", "rbac_email_implicit_role_assignments", "allowed_first_party_connected_apps", "allowed_third_party_connected_apps"} {
			if l, ok := bare[k].([]any); !ok || len(l) != 0 {
				t.Errorf("default %s = %v, want []", k, bare[k])
			}
		}
		if _, present := bare["organization_external_id"]; present {
			t.Errorf("unset organization_external_id is present: %v", bare["organization_external_id"])
		}

		// Updates: "" clears the default connection and the external id.
		r = e.Backend(http.MethodPut, "/v1/b2b/organizations/"+id, map[string]any{"sso_default_connection_id": "", "organization_external_id": ""})
		if o := r.Body["organization"].(map[string]any); r.Status != 200 || o["sso_default_connection_id"] != nil || o["organization_external_id"] != nil {
			t.Fatalf("clear: %s", r.Raw)
		}
		e.Backend(http.MethodPut, "/v1/b2b/organizations/"+id, map[string]any{"organization_external_id": "ext-42"})
		r = e.Backend(http.MethodDelete, "/v1/b2b/organizations/"+id+"/external_id", nil)
		if o := r.Body["organization"].(map[string]any); r.Status != 200 || o["organization_external_id"] != nil {
			t.Fatalf("delete external id: %s", r.Raw)
		}
		apptest.Want(t, e.Backend(http.MethodDelete, "/v1/b2b/organizations/organization-test-nope/external_id", nil), 404, "organization_not_found")
		e.Backend(http.MethodPut, "/v1/b2b/organizations/"+id, map[string]any{"organization_external_id": "ext-42"})
		apptest.Want(t, e.Backend(http.MethodPost, "/v1/b2b/organizations", map[string]any{"organization_name": "Twin", "organization_external_id": "ext-42"}),
			400, "organization_external_id_already_used")
		// Another project may reuse the external id and the slug.
		other := e.NewProject("Other")
		if r := e.Do(http.MethodPost, "/v1/b2b/organizations", map[string]any{"organization_name": "Full Org", "organization_slug": "full-org",
			"organization_external_id": "ext-42"}, nil, other.Project.ID, other.Secret); r.Status != 200 {
			t.Fatalf("other project reusing slug and external id: %s", r.Raw)
		}
	})
}

func TestOrganizationSettingRules(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		id := e.CreateOrg("rules", "NOT_ALLOWED", nil)
		for name, body := range map[string]map[string]any{
			"invites RESTRICTED without domains": {"email_invites": "RESTRICTED"},
			"auth RESTRICTED without methods":    {"auth_methods": "RESTRICTED"},
			"mfa RESTRICTED without methods":     {"mfa_methods": "RESTRICTED"},
			"sso RESTRICTED without connections": {"sso_jit_provisioning": "RESTRICTED"},
			"tenants RESTRICTED without tenants": {"oauth_tenant_jit_provisioning": "RESTRICTED"},
			"apps RESTRICTED without apps":       {"first_party_connected_apps_allowed_type": "RESTRICTED"},
			"no way to join":                     {"sso_jit_provisioning": "NOT_ALLOWED", "email_invites": "NOT_ALLOWED"},
			"oauth tenant ALL_ALLOWED":           {"oauth_tenant_jit_provisioning": "ALL_ALLOWED"},
			"unknown tenant provider":            {"allowed_oauth_tenants": map[string]any{"myspace": []string{"x"}}},
			// Every personal Microsoft account's tid: allowing it would admit anyone.
			"personal Microsoft accounts' tenant": {"allowed_oauth_tenants": map[string]any{"microsoft": []string{"9188040D-6C67-4C5B-B112-36A304B66DAD"}}},
			"unknown mfa method":                  {"allowed_mfa_methods": []string{"carrier_pigeon"}},
			"implicit role without domain":        {"rbac_email_implicit_role_assignments": []any{map[string]any{"role_id": "r"}}},
			"empty connection id":                 {"sso_jit_provisioning_allowed_connections": []string{" "}},
			"trusted_metadata is not an object":   {"trusted_metadata": []int{1}},
			"connected apps type misspelled":      {"third_party_connected_apps_allowed_type": "SOME"},
			"clearing domains that a policy uses": {"email_jit_provisioning": "RESTRICTED", "email_allowed_domains": []string{}},
		} {
			if r := e.Backend(http.MethodPut, "/v1/b2b/organizations/"+id, body); r.Status != 400 || r.ErrType() != "invalid_request" {
				t.Errorf("%s: got %d %s", name, r.Status, r.Raw)
			}
		}
		// Names: 1 to 128 characters (not bytes), no control characters
		// (NUL never gets this far: every body refuses it, httpapi).
		// A blank name is an invalid rename, and on a create no name at all
		// (organization_name_missing, TestOrganizationCreateWithoutAName).
		for _, v := range []string{strings.Repeat("n", 129), "  ", "ctl\u0007name", "two\nlines", "esc\u001b[31m"} {
			apptest.Want(t, e.Backend(http.MethodPut, "/v1/b2b/organizations/"+id, map[string]any{"organization_name": v}), 400, "invalid_organization_name")
			want := "invalid_organization_name"
			if strings.TrimSpace(v) == "" {
				want = "organization_name_missing"
			}
			apptest.Want(t, e.Backend(http.MethodPost, "/v1/b2b/organizations", map[string]any{"organization_name": v, "organization_slug": "refused-name"}),
				400, want)
		}
		apptest.Want(t, e.Backend(http.MethodPut, "/v1/b2b/organizations/"+id, map[string]any{"organization_name": strings.Repeat("é", 128)}), 200, "")
		apptest.Want(t, e.Backend(http.MethodPut, "/v1/b2b/organizations/"+id, map[string]any{"organization_name": "Rules"}), 200, "")
		// A default SSO connection must be one of the organization's active
		// connections (it has none; internal/sso tests the others).
		apptest.Want(t, e.Backend(http.MethodPut, "/v1/b2b/organizations/"+id, map[string]any{"sso_default_connection_id": "saml-connection-test-nope"}),
			400, "invalid_sso_default_connection_id")
		apptest.Want(t, e.Backend(http.MethodPost, "/v1/b2b/organizations", map[string]any{"organization_name": "Defaulted",
			"sso_default_connection_id": "saml-connection-test-nope"}), 400, "invalid_sso_default_connection_id")
		// A refused update changes nothing.
		o := e.Backend(http.MethodGet, "/v1/b2b/organizations/"+id, nil).Body["organization"].(map[string]any)
		if o["email_invites"] != "ALL_ALLOWED" || o["auth_methods"] != "ALL_ALLOWED" {
			t.Fatalf("refused updates leaked: %v", o)
		}
		// Lists replace, de-duplicate and normalise.
		r := e.Backend(http.MethodPut, "/v1/b2b/organizations/"+id, map[string]any{"email_allowed_domains": []string{"A.test", "a.test", "b.test"},
			"allowed_auth_methods": []string{"password", "password"}})
		raw, _ := json.Marshal(r.Body["organization"].(map[string]any)["email_allowed_domains"])
		if string(raw) != `["a.test","b.test"]` {
			t.Fatalf("domains = %s", raw)
		}
		if m := r.Body["organization"].(map[string]any)["allowed_auth_methods"].([]any); len(m) != 1 {
			t.Fatalf("methods = %v", m)
		}
	})
}
