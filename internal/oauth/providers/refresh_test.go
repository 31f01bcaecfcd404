package providers_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"testing"
	"time"

	"github.com/oauth2-proxy/mockoidc"

	"github.com/latchkey/latchkey/internal/oauth/providers"
)

// An OIDC provider's refresh goes to the token endpoint its discovery
// document names (mockoidc, a provider we did not write): the refresh
// token of a code exchange buys a new access token there, and one the
// provider does not know is refused as the provider's failure.
func TestOIDCRefreshAtTheDiscoveredTokenEndpoint(t *testing.T) {
	m, err := mockoidc.Run()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = m.Shutdown() })
	ctx := context.Background()
	p, err := providers.NewFactory(nil).New(ctx, providers.Google, providers.Config{ClientID: m.ClientID,
		ClientSecret: m.ClientSecret, Issuer: m.Issuer()})
	if err != nil {
		t.Fatal(err)
	}
	req := providers.AuthRequest{State: "state-1", RedirectURI: "http://127.0.0.1/callback", Nonce: "nonce-1", Verifier: "verifier-0123456789-0123456789-0123456789"}
	m.QueueUser(&mockoidc.MockUser{Subject: "g-ada", Email: "ada@acme.test", EmailVerified: true})
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	res, err := client.Get(p.AuthCodeURL(req))
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	back, err := url.Parse(res.Header.Get("Location"))
	if err != nil || back.Query().Get("code") == "" {
		t.Fatalf("authorize: %d %s", res.StatusCode, res.Header.Get("Location"))
	}
	id, err := p.Exchange(ctx, back.Query().Get("code"), req)
	if err != nil || id.Tokens.RefreshToken == "" {
		t.Fatalf("exchange: %+v %v", id, err)
	}
	m.FastForward(time.Minute) // mockoidc signs the next token at its own later time
	fresh, err := p.Refresh(ctx, id.Tokens.RefreshToken)
	if err != nil || fresh.AccessToken == "" || fresh.AccessToken == id.Tokens.AccessToken {
		t.Fatalf("refresh: %+v %v", fresh, err)
	}
	if _, err := p.Refresh(ctx, "not-a-refresh-token"); err == nil {
		t.Fatal("an unknown refresh token was taken")
	}
}

// A refresh answer without a refresh token (the provider keeps the one it
// issued) comes back with the one sent, and one with a refresh token (a
// rotation) with the new one: the oauth package stores either as it is.
func TestRefreshAnswersTheRefreshTokenToKeep(t *testing.T) {
	for _, tc := range []struct{ answered, want string }{{"", "rt-sent"}, {"rt-rotated", "rt-rotated"}} {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if err := r.ParseForm(); err != nil || r.Form.Get("grant_type") != "refresh_token" || r.Form.Get("refresh_token") != "rt-sent" {
				http.Error(w, `{"error":"invalid_grant"}`, http.StatusBadRequest)
				return
			}
			a := map[string]any{"access_token": "at-new", "token_type": "bearer", "expires_in": 3600}
			if tc.answered != "" {
				a["refresh_token"] = tc.answered
			}
			w.Header().Set("Content-Type", "application/json")
			_ = json.NewEncoder(w).Encode(a)
		}))
		p, err := providers.NewFactory(nil).New(context.Background(), providers.GitHub, providers.Config{ClientID: "cid",
			ClientSecret: "csecret", TokenURL: srv.URL})
		if err != nil {
			t.Fatal(err)
		}
		fresh, err := p.Refresh(context.Background(), "rt-sent")
		srv.Close()
		if err != nil || fresh.AccessToken != "at-new" || fresh.RefreshToken != tc.want {
			t.Fatalf("answered refresh token %q: %+v %v, want refresh token %q", tc.answered, fresh, err, tc.want)
		}
	}
}
