package oauth_test

import (
	"net/http"
	"net/url"
	"testing"

	"github.com/oauth2-proxy/mockoidc"

	"github.com/latchkey/latchkey/internal/apptest"
	"github.com/latchkey/latchkey/internal/oauth/providers"
)

// The Node client 14.2.0 declares B2BOAuthDiscoveryAuthenticateResponse
// with required provider_type, provider_tenant_id, provider_tenant_ids and
// full_name beside the discovery fields (api-reference §5.4:
// POST /v1/b2b/oauth/discovery/authenticate); they come from the identity
// the token redeems. The browser SDK declares the plain discovery answer
// for the same call, so the SDK face carries none of them.
func TestOAuthDiscoveryAuthenticateProviderFields(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		m := startGoogle(t, e)
		org := e.CreateOrg("initech", "NOT_ALLOWED", map[string]any{"oauth_tenant_jit_provisioning": "RESTRICTED",
			"allowed_oauth_tenants": map[string]any{"google": []string{"initech.test"}}})
		e.CreateVerifiedMember(org, "bill@initech.test") // vouches for the tenant's domain
		discover := func() string {
			m.QueueUser(&editedUser{MockUser: &mockoidc.MockUser{Subject: "peter", Email: "peter@initech.test", EmailVerified: true},
				HD: "initech.test"})
			u := browse(t, e, "/v1/b2b/public/oauth/google/discovery/start?"+url.Values{"public_token": {e.Project.PublicToken}}.Encode())
			return u.Query().Get("token")
		}

		r := e.Backend(http.MethodPost, "/v1/b2b/oauth/discovery/authenticate", map[string]any{"discovery_oauth_token": discover()})
		apptest.Want(t, r, 200, "")
		if r.Body["provider_type"] != "google" || r.Body["provider_tenant_id"] != "initech.test" {
			t.Errorf("provider_type %v, provider_tenant_id %v", r.Body["provider_type"], r.Body["provider_tenant_id"])
		}
		if ids, ok := r.Body["provider_tenant_ids"].([]any); !ok || len(ids) != 1 || ids[0] != "initech.test" {
			t.Errorf("provider_tenant_ids = %v, want [initech.test]", r.Body["provider_tenant_ids"])
		}
		if _, ok := r.Body["full_name"].(string); !ok {
			t.Errorf("full_name missing: %s", r.Raw)
		}
		if len(r.Body["discovered_organizations"].([]any)) != 1 || r.Body["intermediate_session_token"] == "" {
			t.Errorf("discovery answer: %s", r.Raw)
		}

		r = e.SDK(http.MethodPost, "/b2b/oauth/discovery/authenticate", map[string]any{"discovery_oauth_token": discover()}, "")
		apptest.Want(t, r, 200, "")
		for _, f := range []string{"provider_type", "provider_tenant_id", "provider_tenant_ids", "full_name"} {
			if _, ok := r.Data()[f]; ok {
				t.Errorf("SDK face answers %s: %s", f, r.Raw)
			}
		}
	})
}

// provider_tenant_id names a tenant only when the provider named exactly
// one; provider_tenant_ids lists them all (none: an empty list).
func TestOAuthDiscoveryAuthenticateTenantCounts(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		for _, c := range []struct {
			orgs []any
			one  string
			all  []string
		}{
			{[]any{}, "", []string{}},
			{[]any{map[string]any{"id": 77, "login": "a"}, map[string]any{"id": 78, "login": "b"}}, "", []string{"77", "78"}},
		} {
			f := newFakeAPI(t, map[string]any{
				"/user":        map[string]any{"id": 4242, "login": "octo", "name": "Octo Cat"},
				"/user/emails": []any{map[string]any{"email": "octo@hub.test", "primary": true, "verified": true}},
				"/user/orgs":   c.orgs,
			})
			configure(t, e, providers.GitHub, f.config())
			u := browse(t, e, "/v1/b2b/public/oauth/github/discovery/start?"+url.Values{"public_token": {e.Project.PublicToken}}.Encode())
			r := e.Backend(http.MethodPost, "/v1/b2b/oauth/discovery/authenticate", map[string]any{"discovery_oauth_token": u.Query().Get("token")})
			apptest.Want(t, r, 200, "")
			ids, ok := r.Body["provider_tenant_ids"].([]any)
			if !ok || len(ids) != len(c.all) {
				t.Fatalf("provider_tenant_ids = %v, want %v", r.Body["provider_tenant_ids"], c.all)
			}
			for i := range ids {
				if ids[i] != c.all[i] {
					t.Errorf("provider_tenant_ids = %v, want %v", ids, c.all)
				}
			}
			if r.Body["provider_tenant_id"] != c.one || r.Body["provider_type"] != "github" || r.Body["full_name"] != "Octo Cat" {
				t.Errorf("provider_tenant_id %v, provider_type %v, full_name %v", r.Body["provider_tenant_id"], r.Body["provider_type"], r.Body["full_name"])
			}
		}
	})
}
