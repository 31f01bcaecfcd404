package providers_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/oauth2-proxy/mockoidc"

	"github.com/latchkey/latchkey/internal/oauth/providers"
)

// An OIDC provider whose ID token has no email is asked at userinfo; when
// that refuses with a body quoting the access token it was shown (go-oidc
// puts the whole body in its error), the error that becomes the refused
// callback's logged cause keeps the status and holds no token.
func TestUserinfoRefusalHoldsNoToken(t *testing.T) {
	t.Parallel()
	const access, refresh = "access-issued-0123456789", "refresh-issued-0123456789"
	key, err := mockoidc.RandomKeypair(2048)
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	mux.HandleFunc("GET /.well-known/openid-configuration", func(w http.ResponseWriter, r *http.Request) {
		_ = json.NewEncoder(w).Encode(map[string]any{"issuer": srv.URL, "authorization_endpoint": srv.URL + "/authorize",
			"token_endpoint": srv.URL + "/token", "jwks_uri": srv.URL + "/jwks", "userinfo_endpoint": srv.URL + "/userinfo",
			"id_token_signing_alg_values_supported": []string{"RS256"}})
	})
	mux.HandleFunc("GET /jwks", func(w http.ResponseWriter, r *http.Request) {
		b, _ := key.JWKS()
		_, _ = w.Write(b)
	})
	mux.HandleFunc("POST /token", func(w http.ResponseWriter, r *http.Request) {
		now := time.Now()
		id, err := key.SignJWT(jwt.MapClaims{"iss": srv.URL, "aud": "cid", "sub": "o-ada", "nonce": "n-1",
			"iat": now.Unix(), "exp": now.Add(5 * time.Minute).Unix()})
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{"access_token": access, "refresh_token": refresh,
			"token_type": "Bearer", "expires_in": 3600, "id_token": id})
	})
	mux.HandleFunc("GET /userinfo", func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "token "+strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")+" is not valid here", http.StatusUnauthorized)
	})
	p, err := providers.NewFactory(nil).New(context.Background(), providers.Google, providers.Config{ClientID: "cid",
		ClientSecret: "csecret", Issuer: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	_, err = p.Exchange(context.Background(), "code-1", providers.AuthRequest{State: "s", Nonce: "n-1",
		RedirectURI: "http://127.0.0.1/cb", Verifier: "verifier-0123456789-0123456789-0123456789"})
	if err == nil || !strings.Contains(err.Error(), "401") {
		t.Fatalf("exchange: %v, want the userinfo refusal", err)
	}
	if strings.Contains(err.Error(), access) || strings.Contains(err.Error(), refresh) {
		t.Fatalf("the error holds a token: %v", err)
	}
}
