package sso_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"testing"

	"github.com/latchkey/latchkey/internal/apptest"
	"github.com/latchkey/latchkey/internal/oauth"
	"github.com/latchkey/latchkey/internal/oauth/providers"
)

// squatterGitHub runs, on loopback, the GitHub of a person in GitHub
// organization 77 whose primary address, unverified, is email: GitHub's
// authorize, token and user endpoints as GitHub documents them. It is
// configured as the project's GitHub.
func squatterGitHub(t *testing.T, e *apptest.Env, email string) {
	t.Helper()
	mux := http.NewServeMux()
	mux.HandleFunc("GET /authorize", func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		http.Redirect(w, r, q.Get("redirect_uri")+"?"+url.Values{"code": {"code-1"}, "state": {q.Get("state")}}.Encode(), http.StatusFound)
	})
	answer := func(body any) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			if r.Header.Get("Authorization") != "Bearer at-1" && r.URL.Path != "/token" {
				http.Error(w, "unauthorized", http.StatusUnauthorized)
				return
			}
			w.Header().Set("Content-Type", "application/json")
			_ = json.NewEncoder(w).Encode(body)
		}
	}
	mux.HandleFunc("POST /token", answer(map[string]any{"access_token": "at-1", "token_type": "bearer", "scope": "read:user"}))
	mux.HandleFunc("GET /user", answer(map[string]any{"id": 666, "login": "mallory"}))
	mux.HandleFunc("GET /user/orgs", answer([]any{map[string]any{"id": 77, "login": "acme"}}))
	mux.HandleFunc("GET /user/emails", answer([]any{map[string]any{"email": email, "primary": true, "verified": false}}))
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	if err := e.App.OAuth.SaveConfig(context.Background(), oauth.ProviderConfig{ProjectID: e.Project.Project.ID,
		Provider: providers.GitHub, Config: providers.Config{ClientID: "cid", ClientSecret: "csecret",
			AuthorizeURL: srv.URL + "/authorize", TokenURL: srv.URL + "/token", APIURL: srv.URL}}); err != nil {
		t.Fatal(err)
	}
}

// An SSO login is one of the proofs that end access an OAuth account had
// without one (oauth.AddressVerified): someone in the organization's
// GitHub tenant admitted themselves as cfo@acme.test with that address
// unverified at GitHub, and then the organization's own identity provider
// asserts the address for the CFO. The squatter's session ends at the SSO
// callback, before the CFO's session starts, and the CFO's authenticate
// answer says so (reset_session).
func TestSSOProofEndsUnprovenOAuthSessions(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		s := newSAMLEnv(t, e, map[string]any{"oauth_tenant_jit_provisioning": "RESTRICTED",
			"allowed_oauth_tenants": map[string]any{"github": []string{"77"}}})
		squatterGitHub(t, e, "cfo@acme.test")
		r := e.Get("/v1/b2b/public/oauth/github/start?" + url.Values{"public_token": {e.Project.PublicToken},
			"organization_id": {s.orgID}}.Encode())
		if r.Status != http.StatusFound {
			t.Fatalf("start: %s", r.Raw)
		}
		client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
		res, err := client.Get(r.Header.Get("Location"))
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		r = e.Get(res.Header.Get("Location"))
		if r.Status != http.StatusFound {
			t.Fatalf("callback: %s", r.Raw)
		}
		r = e.SDK(http.MethodPost, "/b2b/oauth/authenticate", map[string]any{
			"oauth_token": apptest.LinkToken(t, r.Header.Get("Location"), "", "oauth")}, "")
		apptest.Want(t, r, 200, "")
		squatter, _ := r.Data()["session_token"].(string)
		memberID := r.Data()["member_id"]
		check := func(token string) apptest.Resp {
			return e.Backend(http.MethodPost, "/v1/b2b/sessions/authenticate", map[string]any{"session_token": token})
		}
		apptest.Want(t, check(squatter), 200, "")

		s.idp.login("cfo@acme.test", "okta-cfo", "C", "Fo")
		acs, form := s.idp.follow(s.start(nil))
		token := tokenFrom(t, s.post(acs, form))
		apptest.Want(t, check(squatter), 404, "session_not_found")
		r = e.Backend(http.MethodPost, "/v1/b2b/sso/authenticate", map[string]any{"sso_token": token})
		apptest.Want(t, r, 200, "")
		if r.Body["member_id"] != memberID || r.Body["reset_session"] != true {
			t.Fatalf("the CFO's login: member %v, reset_session %v", r.Body["member_id"], r.Body["reset_session"])
		}
		apptest.Want(t, check(r.Body["session_token"].(string)), 200, "")

		// A later SSO login resets nothing.
		acs, form = s.idp.follow(s.start(nil))
		r = e.Backend(http.MethodPost, "/v1/b2b/sso/authenticate", map[string]any{"sso_token": tokenFrom(t, s.post(acs, form))})
		apptest.Want(t, r, 200, "")
		if r.Body["reset_session"] != false {
			t.Fatalf("later login: reset_session %v", r.Body["reset_session"])
		}
	})
}
