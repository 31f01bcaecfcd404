package oauth_test

import (
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/latchkey/latchkey/internal/apptest"
	"github.com/latchkey/latchkey/internal/oauth"
)

// provider_* start parameters pass through to the provider (prompt,
// login_hint...), except the ones this server owns: a start URL cannot
// send the code to another redirect URI, nor replace the state, nonce,
// PKCE challenge, client, response type or scopes of the login, nor ask
// for another response_mode (form_post comes back by a cross-site POST,
// without the SameSite=Lax binding cookie) or a request object (request,
// request_uri), which a provider accepting unsigned ones reads in place of
// the URL's parameters. The server's own are kept and these three dropped.
func TestOAuthStartProviderParamsCannotOverrideOurs(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		m := startGoogle(t, e)
		org := e.CreateOrg("acme", "NOT_ALLOWED", nil)
		forged := url.Values{"organization_id": {org}, "provider_prompt": {"select_account"}}
		for _, k := range []string{"redirect_uri", "state", "nonce", "code_challenge", "code_challenge_method", "client_id",
			"response_type", "scope"} {
			forged.Set("provider_"+k, "forged")
		}
		for _, k := range []string{"response_mode", "request", "request_uri"} {
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
		for _, k := range []string{"response_mode", "request", "request_uri"} {
			if q.Has(k) {
				t.Errorf("%s = %q passed through", k, q[k])
			}
		}
	})
}

// custom_scopes are kept in the state ticket (and then with the provider
// tokens), so they are bounded: duplicates count once, and past 50 scopes,
// a scope over 200 bytes or 4 KB in all, the start is refused whole,
// naming the field, before anything is stored (a megabyte of scopes was a
// 1.6 MB ticket per start).
func TestOAuthStartCustomScopesBounded(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		startGoogle(t, e)
		org := e.CreateOrg("acme", "NOT_ALLOWED", nil)
		start := func(scopes []string) apptest.Resp {
			return e.Get(startPath(e, "google", url.Values{"organization_id": {org}, "custom_scopes": {strings.Join(scopes, " ")}}))
		}
		scopes := func(n, size int) []string {
			out := make([]string, n)
			for i := range out {
				out[i] = fmt.Sprintf("%0*d", size, i)
			}
			return out
		}
		states := func() int { return e.Count(`SELECT COUNT(*) FROM flow_tickets WHERE kind = 'oauth_state'`) }
		for name, s := range map[string][]string{
			"51 scopes":                scopes(oauth.MaxCustomScopes+1, 3),
			"a scope over 200 bytes":   scopes(1, oauth.MaxCustomScopeBytes+1),
			"over 4 KB in all":         scopes(oauth.MaxCustomScopesBytes/oauth.MaxCustomScopeBytes+1, oauth.MaxCustomScopeBytes),
			"the audit's 100 KB start": scopes(5000, 20),
		} {
			t.Run(name, func(t *testing.T) {
				r := start(s)
				apptest.Want(t, r, 400, "invalid_request")
				if d, _ := r.Body["error_details"].(map[string]any); d["field"] != "custom_scopes" {
					t.Errorf("refusal names %v: %s", d, r.Raw)
				}
				if n := states(); n != 0 {
					t.Fatalf("%d states stored", n)
				}
			})
		}
		// At the bounds, with every scope sent three times: accepted, each
		// scope asked of the provider once.
		s := scopes(oauth.MaxCustomScopes, 40)
		r := start(slices.Concat(s, s, s))
		if r.Status != http.StatusFound {
			t.Fatalf("start at the bounds: %d %s", r.Status, r.Raw)
		}
		u, err := url.Parse(r.Header.Get("Location"))
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.Fields(u.Query().Get("scope")); !slices.Equal(got, slices.Concat([]string{"openid", "email", "profile"}, s)) {
			t.Fatalf("scope = %v", got)
		}
		if n := states(); n != 1 {
			t.Fatalf("%d states stored, want 1", n)
		}
	})
}
