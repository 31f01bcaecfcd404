package providers_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/oauth2-proxy/mockoidc"

	"github.com/latchkey/latchkey/internal/oauth/providers"
)

// issuerDocument serves, on loopback, a discovery document declaring
// issuer (whatever its own URL) and the JWKS of key, and returns the
// provider configured by that document's URL.
func issuerDocument(t *testing.T, issuer string, key *mockoidc.Keypair) providers.IDTokenVerifier {
	t.Helper()
	mux := http.NewServeMux()
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	mux.HandleFunc("GET /.well-known/openid-configuration", func(w http.ResponseWriter, r *http.Request) {
		_ = json.NewEncoder(w).Encode(map[string]any{"issuer": issuer, "authorization_endpoint": srv.URL + "/authorize",
			"token_endpoint": srv.URL + "/token", "jwks_uri": srv.URL + "/jwks", "id_token_signing_alg_values_supported": []string{"RS256"}})
	})
	mux.HandleFunc("GET /jwks", func(w http.ResponseWriter, r *http.Request) {
		b, err := key.JWKS()
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		_, _ = w.Write(b)
	})
	p, err := providers.NewFactory(nil).New(context.Background(), providers.Google, providers.Config{ClientID: "cid",
		ClientSecret: "csecret", Issuer: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	return p.(providers.IDTokenVerifier)
}

// Google documents both accounts.google.com and https://accounts.google.com
// as the iss of its ID tokens. The bare one is accepted exactly where the
// discovery document declares https://accounts.google.com, Google's issuer;
// a document declaring any other issuer accepts its own alone.
func TestGoogleBareIssuer(t *testing.T) {
	key, err := mockoidc.RandomKeypair(2048)
	if err != nil {
		t.Fatal(err)
	}
	token := func(iss string) string {
		now := time.Now()
		tok, err := key.SignJWT(jwt.MapClaims{"iss": iss, "aud": "cid", "sub": "g-ada", "email": "ada@acme.test",
			"email_verified": true, "iat": now.Unix(), "exp": now.Add(5 * time.Minute).Unix()})
		if err != nil {
			t.Fatal(err)
		}
		return tok
	}
	google := issuerDocument(t, "https://accounts.google.com", key)
	for _, iss := range []string{"https://accounts.google.com", "accounts.google.com"} {
		if id, err := google.VerifyIDToken(context.Background(), token(iss), ""); err != nil || id.Subject != "g-ada" {
			t.Errorf("Google's issuer, iss %q: %+v %v", iss, id, err)
		}
	}
	for _, iss := range []string{"http://accounts.google.com", "accounts.google.com.evil.test", "https://evil.test"} {
		if _, err := google.VerifyIDToken(context.Background(), token(iss), ""); !errors.Is(err, providers.ErrProvider) {
			t.Errorf("Google's issuer, iss %q: %v", iss, err)
		}
	}
	other := issuerDocument(t, "https://idp.example.test", key)
	if _, err := other.VerifyIDToken(context.Background(), token("accounts.google.com"), ""); !errors.Is(err, providers.ErrProvider) {
		t.Errorf("another issuer took accounts.google.com: %v", err)
	}
	if _, err := other.VerifyIDToken(context.Background(), token("https://idp.example.test"), ""); err != nil {
		t.Errorf("another issuer refused its own: %v", err)
	}
}
