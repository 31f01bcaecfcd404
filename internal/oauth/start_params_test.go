package oauth_test

import (
	"net/http"
	"net/url"
	"testing"

	"github.com/latchkey/latchkey/internal/apptest"
)

// provider_* start parameters pass through to the provider (prompt,
// login_hint...), except the ones this server owns: a start URL cannot
// send the code to another redirect URI, nor replace the state, nonce,
// PKCE challenge, client, response type or scopes of the login.
func TestOAuthStartProviderParamsCannotOverrideOurs(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		m := startGoogle(t, e)
		org := e.CreateOrg("acme", "NOT_ALLOWED", nil)
		forged := url.Values{"organization_id": {org}, "provider_prompt": {"select_account"}}
		for _, k := range []string{"redirect_uri", "state", "nonce", "code_challenge", "code_challenge_method", "client_id",
			"response_type", "scope"} {
			forged.Set("provider_"+k, "forged")
		}
		r := e.Get(startPath(e, "google", forged))
		if r.Status != http.StatusFound {
			t.Fatalf("start: %d %s", r.Status, r.Raw)
		}
		u, err := url.Parse(r.Header.Get("Location"))
		if err != nil {
			t.Fatal(err)
		}
		q := u.Query()
		if q.Get("prompt") != "select_account" {
			t.Fatalf("prompt did not pass through: %s", u)
		}
		want := map[string]string{"redirect_uri": e.Srv.URL + "/v1/b2b/public/oauth/callback", "client_id": m.ClientID,
			"response_type": "code", "code_challenge_method": "S256"}
		for k, v := range want {
			if q.Get(k) != v {
				t.Errorf("%s = %q, want %q", k, q.Get(k), v)
			}
		}
		for _, k := range []string{"state", "nonce", "code_challenge", "scope"} {
			if vs := q[k]; len(vs) != 1 || vs[0] == "forged" || vs[0] == "" {
				t.Errorf("%s = %q", k, vs)
			}
		}
	})
}
