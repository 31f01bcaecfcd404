package sso_test

import (
	"net/http"
	"net/url"
	"testing"
	"time"

	"github.com/oauth2-proxy/mockoidc"

	"github.com/latchkey/latchkey/internal/apptest"
)

// oidcEnv is a server and an organization with an OIDC connection to
// mockoidc, an independent OpenID provider on loopback (discovery, JWKS,
// PKCE, nonce).
type oidcEnv struct {
	*apptest.Env
	op     *mockoidc.MockOIDC
	orgID  string
	connID string
}

func newOIDCEnv(t *testing.T, e *apptest.Env) *oidcEnv {
	t.Helper()
	op, err := mockoidc.Run()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = op.Shutdown() })
	return newOIDCEnvOn(t, e, op)
}

// newOIDCEnvOn is newOIDCEnv with a provider the test started itself.
func newOIDCEnvOn(t *testing.T, e *apptest.Env, op *mockoidc.MockOIDC) *oidcEnv {
	t.Helper()
	// mockoidc stamps tokens with the real clock.
	e.Clock.Advance(time.Until(e.Clock.Now()) * -1)
	s := &oidcEnv{Env: e, op: op}
	s.orgID = e.CreateOrg("acme", "NOT_ALLOWED", nil)
	r := e.Backend(http.MethodPost, "/v1/b2b/sso/oidc/"+s.orgID, map[string]any{"display_name": "Acme OIDC"})
	apptest.Want(t, r, 200, "")
	s.connID = r.Body["connection"].(map[string]any)["connection_id"].(string)
	cfg := op.Config()
	r = e.Backend(http.MethodPut, "/v1/b2b/sso/oidc/"+s.orgID+"/connections/"+s.connID, map[string]any{
		"issuer": op.Issuer(), "client_id": cfg.ClientID, "client_secret": cfg.ClientSecret})
	apptest.Want(t, r, 200, "")
	c := r.Body["connection"].(map[string]any)
	if c["status"] != "active" || c["token_url"] != op.TokenEndpoint() || c["client_secret"] != "" || r.Body["warning"] != "" {
		t.Fatalf("configured: %s", r.Raw)
	}
	return s
}

// login starts a login and follows the provider back to our callback,
// returning the callback's answer.
func (s *oidcEnv) login(user mockoidc.User, extra url.Values) apptest.Resp {
	s.T.Helper()
	q := url.Values{"public_token": {s.Project.PublicToken}, "connection_id": {s.connID}}
	for k, v := range extra {
		q[k] = v
	}
	r := s.Get("/v1/public/sso/start?" + q.Encode())
	if r.Status != http.StatusFound {
		s.T.Fatalf("start: %d %s", r.Status, r.Raw)
	}
	if user != nil {
		s.op.QueueUser(user)
	}
	r = s.Get(r.Header.Get("Location")) // the provider answers with a redirect to our callback
	if r.Status != http.StatusFound {
		s.T.Fatalf("provider: %d %s", r.Status, r.Raw)
	}
	return s.Get(r.Header.Get("Location"))
}

func TestOIDCLoginWithJIT(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		s := newOIDCEnv(t, e)
		user := &mockoidc.MockUser{Subject: "oidc-sub-1", Email: "lin@acme.test", EmailVerified: true}
		token := tokenFrom(t, s.login(user, nil))
		r := s.SDK(http.MethodPost, "/b2b/sso/authenticate", map[string]any{"sso_token": token}, "")
		apptest.Want(t, r, 200, "")
		d := r.Data()
		if d["member"].(map[string]any)["email_address"] != "lin@acme.test" {
			t.Fatalf("member: %s", r.Raw)
		}
		f := d["member_session"].(map[string]any)["authentication_factors"].([]any)[0].(map[string]any)
		if f["delivery_method"] != "sso_oidc" || f["oidc_sso_factor"] != nil { // the browser SDK declares no SSO factor object
			t.Fatalf("factor: %v", f)
		}
	})
}

func TestOIDCNegative(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		s := newOIDCEnv(t, e)
		user := &mockoidc.MockUser{Subject: "oidc-sub-1", Email: "lin@acme.test", EmailVerified: true}
		// started runs a login start and answers the provider's authorize
		// redirect; back follows it as user and answers the callback URL
		// the provider sends the browser to.
		started := func() apptest.Resp {
			q := url.Values{"public_token": {s.Project.PublicToken}, "connection_id": {s.connID}}
			return s.Get("/v1/public/sso/start?" + q.Encode())
		}
		stateOf := func(r apptest.Resp) string {
			authz, _ := url.Parse(r.Header.Get("Location"))
			return authz.Query().Get("state")
		}
		back := func() apptest.Resp {
			r := started()
			s.op.QueueUser(user)
			return s.Get(r.Header.Get("Location"))
		}
		withState := func(r apptest.Resp, edit func(url.Values)) string {
			u, _ := url.Parse(r.Header.Get("Location"))
			v := u.Query()
			edit(v)
			u.RawQuery = v.Encode()
			return u.String()
		}

		t.Run("state mismatch", func(t *testing.T) {
			wantPage(t, s.Get(withState(back(), func(v url.Values) { v.Set("state", "forged") })), 400, "unsolicited_oidc_response")
		})
		t.Run("expired ID token", func(t *testing.T) {
			r := back()
			// Past the ID token's ten minutes, within the state's fifteen.
			e.Clock.Advance(12 * time.Minute)
			defer e.Clock.Advance(-12 * time.Minute)
			wantPage(t, s.Get(r.Header.Get("Location")), 400, "oidc_invalid_id_token")
		})
		t.Run("no state", func(t *testing.T) {
			wantPage(t, s.Get(withState(back(), func(v url.Values) { v.Del("state") })), 400, "missing_oidc_state_param")
		})
		t.Run("no code", func(t *testing.T) {
			cb := url.Values{"state": {stateOf(started())}}
			wantPage(t, s.Get("/v1/b2b/sso/callback/"+s.connID+"?"+cb.Encode()), 400, "oidc_invalid_callback_request")
		})
		t.Run("code the provider refuses", func(t *testing.T) {
			cb := url.Values{"state": {stateOf(started())}, "code": {"never-issued"}}
			wantPage(t, s.Get("/v1/b2b/sso/callback/"+s.connID+"?"+cb.Encode()), 400, "oidc_auth_code_error")
		})
		t.Run("provider error", func(t *testing.T) {
			// The provider sends the browser back with an OAuth error.
			cb := url.Values{"error": {"access_denied"}, "state": {stateOf(started())}}
			wantPage(t, s.Get("/v1/b2b/sso/callback/"+s.connID+"?"+cb.Encode()), 400, "sso_identity_provider_error")
		})
		t.Run("PKCE mismatch", func(t *testing.T) {
			verifier := "a-verifier-of-the-customer-page-that-is-long-enough-0123456789"
			token := tokenFrom(t, s.login(user, url.Values{"pkce_code_challenge": {s256(verifier)}}))
			r := s.SDK(http.MethodPost, "/b2b/sso/authenticate", map[string]any{"sso_token": token}, "")
			apptest.Want(t, r, 400, "pkce_expected_code_verifier")
			r = s.SDK(http.MethodPost, "/b2b/sso/authenticate", map[string]any{"sso_token": token, "pkce_code_verifier": verifier}, "")
			apptest.Want(t, r, 200, "")
		})
	})
}
