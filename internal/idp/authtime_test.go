package idp_test

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"testing"
	"time"

	"github.com/latchkey/latchkey/internal/apptest"
)

// auth_time is when the member last authenticated, by the rule step-up
// follows (session.AuthenticatedAt): a session exchanged from an access
// token (here one refreshed twenty days after the member's login) or
// migrated from another provider is no authentication of the member's
// own, whatever its start. Such a session meets no max_age and no
// prompt=login (the member logs in again; under prompt=none the client
// gets login_required), and otherwise its codes give ID tokens without an
// auth_time claim, on the code exchange and on refresh.
func TestSessionsWithoutAnAuthenticationHaveNoAuthTime(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		f := setup(t, e)
		full, fullSecret := f.client("first_party", map[string]any{"full_access_allowed": true})
		rp, rpSecret := f.client("first_party", nil)
		rt := f.grant(full, fullSecret, "openid", "full_access", "offline_access").Body["refresh_token"].(string)
		e.Clock.Advance(20 * 24 * time.Hour)
		refreshed := f.refresh(full, fullSecret, rt, "")
		apptest.Want(t, refreshed, 200, "")
		x := e.Backend(http.MethodPost, "/v1/b2b/sessions/exchange_access_token",
			map[string]any{"access_token": refreshed.Body["access_token"]})
		apptest.Want(t, x, 200, "")

		prev := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Header.Get("Authorization") != "Bearer old-provider-token" {
				http.Error(w, "invalid token", http.StatusUnauthorized)
				return
			}
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write([]byte(`{"sub":"1","email":"ada@acme.test","email_verified":true}`))
		}))
		t.Cleanup(prev.Close)
		if err := e.App.TrustedAuth.SetMigrationUserinfoURL(t.Context(), e.Project.Project.ID, prev.URL); err != nil {
			t.Fatal(err)
		}
		m := e.Backend(http.MethodPost, "/v1/b2b/sessions/migrate",
			map[string]any{"session_token": "old-provider-token", "organization_id": f.org})
		apptest.Want(t, m, 200, "")

		for name, token := range map[string]string{"exchanged": x.Body["session_token"].(string),
			"migrated": m.Body["session_token"].(string)} {
			f.session = token
			for _, ask := range []map[string]any{{"max_age": 60}, {"max_age": 0}, {"prompt": "login"}} {
				req := authReq(rp, "openid", "offline_access")
				for k, v := range ask {
					req[k] = v
				}
				apptest.Want(t, e.SDK(http.MethodPost, "/idp/b2b/oauth/authorize/start", req, token), 401, "login_required")
				req["consent_granted"] = true
				r := e.SDK(http.MethodPost, "/idp/b2b/oauth/authorize/submit", req, token)
				apptest.Want(t, r, 200, "")
				if u, _ := url.Parse(r.Data()["redirect_uri"].(string)); u.Query().Get("error") != "login_required" || u.Query().Has("code") {
					t.Fatalf("%s session, %v: %s", name, ask, r.Raw)
				}
			}
			tokens := f.grant(rp, rpSecret, "openid", "offline_access")
			if at, ok := f.claims(tokens.Body["id_token"].(string))["auth_time"]; ok {
				t.Fatalf("%s session: ID token auth_time %v", name, at)
			}
			again := f.refresh(rp, rpSecret, tokens.Body["refresh_token"].(string), "")
			apptest.Want(t, again, 200, "")
			if at, ok := f.claims(again.Body["id_token"].(string))["auth_time"]; ok {
				t.Fatalf("%s session, refreshed: ID token auth_time %v", name, at)
			}
		}

		// A login of the member's own is an authentication: it meets max_age.
		f.session, _ = e.LoginByEmailOTP(f.org, "ada@acme.test")
		req := authReq(rp, "openid")
		req["max_age"] = 60
		_, back := f.authorize(req, true)
		tokens := f.exchange(rp, rpSecret, back.Get("code"), verifier)
		apptest.Want(t, tokens, 200, "")
		if at := f.claims(tokens.Body["id_token"].(string))["auth_time"]; at != float64(e.Clock.Now().Unix()) {
			t.Fatalf("auth_time after a login %v, want %d", at, e.Clock.Now().Unix())
		}
	})
}
