package providers_test

import (
	"context"
	"net/url"
	"slices"
	"strings"
	"testing"

	"golang.org/x/oauth2"

	"github.com/latchkey/latchkey/internal/oauth/providers"
)

// FuzzAuthCodeURL builds a GitHub authorization URL with a caller's
// pass-through parameters (provider_{name} of the start URL) and scopes.
// Property, read as the provider reads the URL (its query, first value of
// each name): the parameters that bind the login (state, redirect_uri,
// client_id, response_type, the PKCE challenge and method) are exactly
// ours and appear once, the provider's own scopes are all asked for,
// response_mode / request / request_uri are never sent, and every other
// pass-through parameter arrives as given.
func FuzzAuthCodeURL(f *testing.F) {
	for _, p := range [][5]string{
		{"prompt", "select_account", "login_hint", "ada@example.com", "repo"},
		{"state", "forged", "redirect_uri", "https://evil.example/cb", ""},
		{"response_mode", "form_post", "request_uri", "https://evil.example/req", "read:org"},
		{"code_challenge", "x", "scope", "openid", "user:email write:org"},
		{"State", "forged", "allow_signup", "false", "a&state=b"},
	} {
		f.Add(p[0], p[1], p[2], p[3], p[4])
	}
	prov, err := providers.NewFactory(nil).New(context.Background(), providers.GitHub, providers.Config{
		ClientID: "client-1", ClientSecret: "secret-1", AuthorizeURL: "https://github.example/login/oauth/authorize?tenant=t1"})
	if err != nil {
		f.Fatal(err)
	}
	const (
		state    = "state-token-123"
		redirect = "https://auth.example.com/v1/oauth/callback/github"
		verifier = "verifier-0123456789-0123456789-0123456789-0123456789"
	)
	f.Fuzz(func(t *testing.T, k1, v1, k2, v2, scopes string) {
		params := map[string]string{k1: v1, k2: v2}
		link := prov.AuthCodeURL(providers.AuthRequest{State: state, RedirectURI: redirect, Verifier: verifier,
			Scopes: strings.Fields(scopes), Params: params})
		u, err := url.Parse(link)
		if err != nil {
			t.Fatalf("AuthCodeURL = %q: %v", link, err)
		}
		q, err := url.ParseQuery(u.RawQuery)
		if err != nil {
			t.Fatalf("AuthCodeURL = %q: query: %v", link, err)
		}
		for name, want := range map[string]string{"state": state, "redirect_uri": redirect, "client_id": "client-1",
			"response_type": "code", "code_challenge": oauth2.S256ChallengeFromVerifier(verifier), "code_challenge_method": "S256",
			"tenant": "t1"} {
			if _, passed := params[name]; name == "tenant" && passed {
				continue // the configured URL's own query is not ours to keep: a pass-through adds a second value
			}
			if got := q[name]; len(got) != 1 || got[0] != want {
				t.Fatalf("AuthCodeURL(%q) = %q: %s is %q, want %q once", params, link, name, got, want)
			}
		}
		for _, name := range []string{"response_mode", "request", "request_uri", "nonce"} {
			if q.Has(name) {
				t.Fatalf("AuthCodeURL(%q) = %q sends %s", params, link, name)
			}
		}
		asked := strings.Fields(q.Get("scope"))
		for _, s := range []string{"read:user", "user:email"} {
			if !slices.Contains(asked, s) {
				t.Fatalf("AuthCodeURL = %q: scope %q lost", link, s)
			}
		}
		for k, v := range params {
			switch k {
			case "state", "redirect_uri", "client_id", "response_type", "code_challenge", "code_challenge_method",
				"scope", "response_mode", "request", "request_uri", "nonce", "tenant":
				continue
			}
			if got := q[k]; len(got) != 1 || got[0] != v {
				t.Fatalf("AuthCodeURL(%q) = %q: pass-through %s is %q, want %q", params, link, k, got, v)
			}
		}
	})
}
