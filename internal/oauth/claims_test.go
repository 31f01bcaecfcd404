package oauth_test

import (
	"net/http"
	"net/url"
	"testing"

	"github.com/latchkey/latchkey/internal/apptest"
	"github.com/oauth2-proxy/mockoidc"
)

// TestOAuthLoginTakesCustomClaims: b2b/oauth/authenticate stores the
// backend's session_custom_claims on the session it starts, refusing bad
// ones before the OAuth token is spent; the SDK face takes none.
func TestOAuthLoginTakesCustomClaims(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		m := startGoogle(t, e)
		org := e.CreateOrg("acme", "NOT_ALLOWED", nil)
		e.CreateMember(org, "ada@acme.test")
		oauthToken := func() string {
			t.Helper()
			m.QueueUser(&mockoidc.MockUser{Subject: "g-ada", Email: "ada@acme.test", EmailVerified: true})
			return browse(t, e, startPath(e, "google", url.Values{"organization_id": {org}})).Query().Get("token")
		}
		body := map[string]any{"oauth_token": oauthToken(), "session_custom_claims": map[string]any{"https://stytch.com/session": nil}}
		apptest.Want(t, e.Backend(http.MethodPost, "/v1/b2b/oauth/authenticate", body), 400, "stytch_claims_in_custom_claims")
		body["session_custom_claims"] = map[string]any{"plan": "pro", "nbf": 1}
		r := e.Backend(http.MethodPost, "/v1/b2b/oauth/authenticate", body)
		apptest.Want(t, r, 200, "")
		e.WantLoginClaims(t, r.Body, map[string]any{"plan": "pro"})

		r = e.SDK(http.MethodPost, "/b2b/oauth/authenticate", map[string]any{"oauth_token": oauthToken(),
			"session_custom_claims": map[string]any{"admin": true}}, "")
		apptest.Want(t, r, 200, "")
		e.WantLoginClaims(t, r.Data(), map[string]any{})
	})
}
