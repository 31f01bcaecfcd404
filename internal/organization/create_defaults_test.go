package organization_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/latchkey/latchkey/internal/apptest"
)

// The Node client's organizations.create: email_invites is ALL_ALLOWED
// when the create names no authentication setting, NOT_ALLOWED when it
// names some but not email_invites.
func TestCreateEmailInvitesDefault(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		n := 0
		invitesOf := func(fields map[string]any) string {
			t.Helper()
			n++
			body := map[string]any{"organization_name": "Org", "organization_slug": fmt.Sprintf("org-%d", n)}
			for k, v := range fields {
				body[k] = v
			}
			r := e.Backend(http.MethodPost, "/v1/b2b/organizations", body)
			if r.Status != 200 {
				t.Fatalf("create %v: %s", fields, r.Raw)
			}
			return r.Body["organization"].(map[string]any)["email_invites"].(string)
		}

		// Nothing but descriptive fields, metadata and connected-app
		// settings: invites are the organization's way to add members.
		for name, fields := range map[string]map[string]any{
			"name only":           nil,
			"descriptive fields":  {"organization_logo_url": "https://logo.test/a.png", "organization_external_id": "ext-1", "trusted_metadata": map[string]any{"plan": "pro"}},
			"connected apps":      {"first_party_connected_apps_allowed_type": "NOT_ALLOWED", "third_party_connected_apps_allowed_type": "ALL_ALLOWED"},
			"auth setting null":   {"email_jit_provisioning": nil, "mfa_policy": nil},
			"implicit roles none": {"rbac_email_implicit_role_assignments": []any{}},
		} {
			if got := invitesOf(fields); got != "ALL_ALLOWED" {
				t.Errorf("%s: email_invites = %s, want ALL_ALLOWED", name, got)
			}
		}

		// Any authentication setting, even at its default value.
		for _, fields := range []map[string]any{
			{"email_jit_provisioning": "NOT_ALLOWED"},
			{"email_allowed_domains": []string{}},
			{"sso_jit_provisioning": "ALL_ALLOWED"},
			{"sso_jit_provisioning_allowed_connections": []string{}},
			{"sso_default_connection_id": ""},
			{"oauth_tenant_jit_provisioning": "NOT_ALLOWED"},
			{"allowed_oauth_tenants": map[string]any{}},
			{"auth_methods": "ALL_ALLOWED"},
			{"allowed_auth_methods": []string{"magic_link"}},
			{"mfa_policy": "OPTIONAL"},
			{"mfa_methods": "ALL_ALLOWED"},
			{"allowed_mfa_methods": []string{"totp"}},
		} {
			if got := invitesOf(fields); got != "NOT_ALLOWED" {
				t.Errorf("%v: email_invites = %s, want NOT_ALLOWED", fields, got)
			}
		}

		// An explicit email_invites is kept, with or without other settings.
		if got := invitesOf(map[string]any{"email_invites": "NOT_ALLOWED"}); got != "NOT_ALLOWED" {
			t.Errorf("explicit NOT_ALLOWED alone: %s", got)
		}
		if got := invitesOf(map[string]any{"email_invites": "RESTRICTED", "email_allowed_domains": []string{"acme.test"},
			"mfa_policy": "REQUIRED_FOR_ALL"}); got != "RESTRICTED" {
			t.Errorf("explicit RESTRICTED: %s", got)
		}

		// The default cannot leave the organization without a way in; the
		// refusal says why, and an explicit email_invites is the fix.
		closed := map[string]any{"organization_name": "Closed", "organization_slug": "closed", "sso_jit_provisioning": "NOT_ALLOWED"}
		r := e.Backend(http.MethodPost, "/v1/b2b/organizations", closed)
		apptest.Want(t, r, 400, "invalid_request")
		if msg, _ := r.Body["error_message"].(string); !strings.Contains(msg, "defaults to NOT_ALLOWED") {
			t.Errorf("refusal does not explain the default: %s", r.Raw)
		}
		closed["email_invites"] = "ALL_ALLOWED"
		if r := e.Backend(http.MethodPost, "/v1/b2b/organizations", closed); r.Status != 200 {
			t.Fatalf("closed with invites: %s", r.Raw)
		}

		// The rule is the create's: an update naming settings leaves
		// email_invites as stored.
		id := e.Backend(http.MethodPost, "/v1/b2b/organizations", map[string]any{"organization_name": "Later", "organization_slug": "later"}).
			Body["organization"].(map[string]any)["organization_id"].(string)
		r = e.Backend(http.MethodPut, "/v1/b2b/organizations/"+id, map[string]any{"email_jit_provisioning": "NOT_ALLOWED", "mfa_policy": "REQUIRED_FOR_ALL"})
		if r.Status != 200 || r.Body["organization"].(map[string]any)["email_invites"] != "ALL_ALLOWED" {
			t.Fatalf("update changed email_invites: %s", r.Raw)
		}
	})
}
