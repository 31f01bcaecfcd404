package app_test

import (
	"net/http"
	"reflect"
	"testing"

	"github.com/latchkey/latchkey/internal/apptest"
)

// Regression tests for wire-format bugs the compatibility suite (e2e/compat-*.test.mjs, the public
// SDKs as clients) found. The Node client (stytch 14.2.0) declares these fields required, so typed
// application code reads them without a null check.

// TestOrganizationListsAreNeverNull: an organization created with no domains and no method lists
// used to come back with email_allowed_domains and allowed_auth_methods as null, because equal
// stored values ("[]") collapsed in the decoder. Every list must be a JSON array.
func TestOrganizationListsAreNeverNull(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		r := e.Backend(http.MethodPost, "/v1/b2b/organizations", map[string]any{"organization_name": "Bare", "organization_slug": "bare"})
		if r.Status != 200 {
			t.Fatalf("create: %d %s", r.Status, r.Raw)
		}
		id := r.Body["organization"].(map[string]any)["organization_id"].(string)
		lists := []string{"email_allowed_domains", "allowed_auth_methods", "allowed_mfa_methods", "claimed_email_domains",
			"allowed_first_party_connected_apps", "allowed_third_party_connected_apps", "custom_roles",
			"sso_jit_provisioning_allowed_connections", "sso_active_connections", "rbac_email_implicit_role_assignments"}
		check := func(what string, o map[string]any, names []string) {
			t.Helper()
			for _, k := range names {
				if v, ok := o[k].([]any); !ok || len(v) != 0 {
					t.Errorf("%s: %s = %#v, want []", what, k, o[k])
				}
			}
		}
		check("create", r.Body["organization"].(map[string]any), lists)
		o := e.Backend(http.MethodGet, "/v1/b2b/organizations/"+id, nil).Body["organization"].(map[string]any)
		check("get", o, lists)
		for _, k := range []string{"first_party_connected_apps_allowed_type", "third_party_connected_apps_allowed_type"} {
			if o[k] != "ALL_ALLOWED" {
				t.Errorf("%s = %#v, want ALL_ALLOWED", k, o[k])
			}
		}
		// The widget's slug lookup carries the same lists.
		so := e.SDK(http.MethodPost, "/b2b/organizations/search", map[string]any{"organization_slug": "bare"}, "").Data()["organization"].(map[string]any)
		check("slug search", so, []string{"email_allowed_domains", "allowed_auth_methods"})

		// Members carry is_locked (no lockout exists yet, so false).
		e.CreateMember(id, "ann@bare.test")
		m := e.Backend(http.MethodGet, "/v1/b2b/organizations/"+id+"/member?email_address=ann@bare.test", nil).Body["member"].(map[string]any)
		if m["is_locked"] != false {
			t.Errorf("member is_locked = %#v, want false", m["is_locked"])
		}
	})
}

// TestClaimedEmailDomainsAreTheBackendsSetting: claimed_email_domains is what the backend set (an
// allowed domain under RESTRICTED email JIT is not a claim), on the backend face only: the browser
// SDK does not declare the field, so the SDK face does not show it (nor take it: organization's
// TestClaimedDomainsAreNotSetForMembers).
func TestClaimedEmailDomainsAreTheBackendsSetting(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		walled := e.CreateOrg("walled", "RESTRICTED", map[string]any{"email_allowed_domains": []string{"walled.test", "also.test"}})
		claimer := e.CreateOrg("claimer", "NOT_ALLOWED", map[string]any{"claimed_email_domains": []string{"claimer.test"}})
		claimed := func(id string) any {
			return e.Backend(http.MethodGet, "/v1/b2b/organizations/"+id, nil).Body["organization"].(map[string]any)["claimed_email_domains"]
		}
		if got := claimed(walled); !reflect.DeepEqual(got, []any{}) {
			t.Errorf("RESTRICTED: claimed_email_domains = %#v", got)
		}
		if got := claimed(claimer); !reflect.DeepEqual(got, []any{"claimer.test"}) {
			t.Errorf("set by the backend: claimed_email_domains = %#v", got)
		}
		e.CreateMember(claimer, "ann@claimer.test")
		r := e.SDK(http.MethodGet, "/b2b/organizations/me", nil, e.SessionFor(claimer, "ann@claimer.test"))
		if _, shown := r.Data()["organization"].(map[string]any)["claimed_email_domains"]; r.Status != 200 || shown {
			t.Errorf("SDK organizations/me: %s", r.Raw)
		}
	})
}

// TestAuthenticateAnswersNameTheOrganization: the email-code and magic-link authenticate answers
// carry organization_id at the top level (the Node client declares it required there), and the
// magic-link one reset_sessions (always false: redeeming a login link resets nothing). Both also
// hold when only an intermediate session is issued (primary_required). These are the backend
// face's answers: the browser SDK declares neither field, so the SDK face leaves them out.
func TestAuthenticateAnswersNameTheOrganization(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		org := e.CreateOrg("acme", "ALL_ALLOWED", nil)
		e.CreateMember(org, "ada@acme.test")

		e.SendCode(org, "ada@acme.test")
		_, codes := e.LastMail("ada@acme.test")
		d := e.Backend(http.MethodPost, "/v1/b2b/otps/email/authenticate", map[string]any{"email_address": "ada@acme.test",
			"organization_id": org, "code": codes[0], "session_duration_minutes": 60}).Body
		if d["organization_id"] != org || d["member_authenticated"] != true {
			t.Errorf("email code: organization_id = %#v, member_authenticated = %#v", d["organization_id"], d["member_authenticated"])
		}
		if _, ok := d["reset_sessions"]; ok {
			t.Error("email code answer has reset_sessions, which belongs to magic links")
		}

		e.SendLink(org, "ada@acme.test", nil)
		links, _ := e.LastMail("ada@acme.test")
		backendRedeem := func(token string) map[string]any {
			return e.Backend(http.MethodPost, "/v1/b2b/magic_links/authenticate", map[string]any{"magic_links_token": token,
				"session_duration_minutes": 60}).Body
		}
		d = backendRedeem(apptest.MagicLinkToken(t, links[0]))
		if d["organization_id"] != org || d["reset_sessions"] != false || d["member_authenticated"] != true {
			t.Errorf("magic link: organization_id = %#v, reset_sessions = %#v", d["organization_id"], d["reset_sessions"])
		}

		// A policy that refuses the factor: an IST, still naming the organization.
		if r := e.Backend(http.MethodPut, "/v1/b2b/organizations/"+org, map[string]any{"auth_methods": "RESTRICTED",
			"allowed_auth_methods": []string{"email_otp"}}); r.Status != 200 {
			t.Fatalf("restrict: %s", r.Raw)
		}
		e.SendLink(org, "ada@acme.test", nil)
		links, _ = e.LastMail("ada@acme.test")
		d = backendRedeem(apptest.MagicLinkToken(t, links[0]))
		if d["member_authenticated"] != false || d["intermediate_session_token"] == "" || d["organization_id"] != org ||
			d["reset_sessions"] != false {
			t.Errorf("primary_required answer: %#v", d)
		}
	})
}
