package sso_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/oauth2-proxy/mockoidc"

	"github.com/latchkey/latchkey/internal/apptest"
)

// TestSSOLoginTakesCustomClaims: b2b/sso/authenticate stores the
// backend's session_custom_claims on the session it starts, refusing bad
// ones before the SSO token is spent; the SDK face takes none.
func TestSSOLoginTakesCustomClaims(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		s := newOIDCEnv(t, e)
		ssoToken := func() string {
			t.Helper()
			return tokenFrom(t, s.login(&mockoidc.MockUser{Subject: "oidc-sub-1", Email: "lin@acme.test", EmailVerified: true}, nil))
		}
		body := map[string]any{"sso_token": ssoToken(), "session_custom_claims": map[string]any{"big": strings.Repeat("x", 4100)}}
		apptest.Want(t, e.Backend(http.MethodPost, "/v1/b2b/sso/authenticate", body), 400, "custom_claims_too_large")
		body["session_custom_claims"] = map[string]any{"plan": "pro", "iss": "x"}
		r := e.Backend(http.MethodPost, "/v1/b2b/sso/authenticate", body)
		apptest.Want(t, r, 200, "")
		e.WantLoginClaims(t, r.Body, map[string]any{"plan": "pro"})

		r = e.SDK(http.MethodPost, "/b2b/sso/authenticate", map[string]any{"sso_token": ssoToken(),
			"session_custom_claims": map[string]any{"admin": true}}, "")
		apptest.Want(t, r, 200, "")
		e.WantLoginClaims(t, r.Data(), map[string]any{})
	})
}
