package sso_test

import (
	"net/http"
	"net/url"
	"testing"

	"github.com/latchkey/latchkey/internal/apptest"
)

// An OIDC SSO start passes provider_* parameters through (prompt), but
// never one this server owns: neither the response_mode (form_post would
// bring the code back by a cross-site POST, without the SameSite=Lax
// binding cookie) nor a request object (request, request_uri), which a
// provider accepting unsigned ones reads in place of the URL's state,
// nonce and redirect_uri.
func TestSSOOIDCStartKeepsOwnParameters(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		s := newOIDCEnv(t, e)
		q := url.Values{"public_token": {s.Project.PublicToken}, "connection_id": {s.connID}, "provider_prompt": {"login"},
			"provider_response_mode": {"form_post"}, "provider_request": {"eyJhbGciOiJub25lIn0.e30."},
			"provider_request_uri": {"https://attacker.test/request.jwt"}}
		r := e.Get("/v1/public/sso/start?" + q.Encode())
		if r.Status != http.StatusFound {
			t.Fatalf("start: %d %s", r.Status, r.Raw)
		}
		authz, err := url.Parse(r.Header.Get("Location"))
		if err != nil {
			t.Fatal(err)
		}
		if authz.Query().Get("prompt") != "login" {
			t.Fatalf("prompt did not pass through: %s", authz)
		}
		for _, k := range []string{"response_mode", "request", "request_uri"} {
			if authz.Query().Has(k) {
				t.Errorf("the start asks the provider for %s: %s", k, authz)
			}
		}
	})
}
