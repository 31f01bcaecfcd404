package providers_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/latchkey/latchkey/internal/oauth/providers"
)

// hubspotAPI is HubSpot's token and token metadata endpoints on loopback,
// as HubSpot documents them (the metadata is read at
// /oauth/v1/access-tokens/{token}); metadata says how the latter answers:
// "ok", "fail" (a 500) or "drop" (the connection closed unanswered).
func hubspotAPI(t *testing.T, access string, metadata *string) providers.Config {
	t.Helper()
	mux := http.NewServeMux()
	mux.HandleFunc("POST /oauth/v1/token", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{"access_token": access, "refresh_token": "refresh-1",
			"token_type": "bearer", "expires_in": 1800})
	})
	mux.HandleFunc("GET /oauth/v1/access-tokens/{token}", func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.PathValue("token") != access:
			http.Error(w, "unknown token", http.StatusNotFound)
		case *metadata == "fail":
			http.Error(w, "internal error", http.StatusInternalServerError)
		case *metadata == "drop":
			conn, _, err := w.(http.Hijacker).Hijack()
			if err == nil {
				conn.Close()
			}
		default:
			w.Header().Set("Content-Type", "application/json")
			_ = json.NewEncoder(w).Encode(map[string]any{"user": "ada@hub.test", "user_id": 42, "hub_id": 7,
				"hub_domain": "hub.test", "scopes": []string{"oauth"}})
		}
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return providers.Config{ClientID: "cid", ClientSecret: "csecret", AuthorizeURL: srv.URL + "/oauth/authorize",
		TokenURL: srv.URL + "/oauth/v1/token", APIURL: srv.URL}
}

// HubSpot's token metadata URL has the access token in its path. When
// reading it fails, by an answer or by the connection, the error, which
// becomes the logged cause of the refused callback, names the resource
// and never holds the URL or the token (net/http's *url.Error would
// print both).
func TestHubSpotErrorsHoldNoToken(t *testing.T) {
	const access = "hubspot-access-token-0123456789"
	metadata := "ok"
	p, err := providers.NewFactory(nil).New(context.Background(), providers.HubSpot, hubspotAPI(t, access, &metadata))
	if err != nil {
		t.Fatal(err)
	}
	id, err := p.Exchange(context.Background(), "code-1", providers.AuthRequest{RedirectURI: "http://127.0.0.1/cb"})
	if err != nil || id.Subject != "42" || id.Email != "ada@hub.test" || id.Tokens.AccessToken != access {
		t.Fatalf("exchange: %+v %v", id, err)
	}
	for _, mode := range []string{"fail", "drop"} {
		metadata = mode
		_, err := p.Exchange(context.Background(), "code-1", providers.AuthRequest{RedirectURI: "http://127.0.0.1/cb"})
		if err == nil || !errors.Is(err, providers.ErrProvider) {
			t.Fatalf("%s: %v", mode, err)
		}
		if msg := err.Error(); strings.Contains(msg, access) || strings.Contains(msg, "/access-tokens/") ||
			!strings.Contains(msg, "hubspot token metadata") {
			t.Errorf("%s: error %q", mode, msg)
		}
	}
}
