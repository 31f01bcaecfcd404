package oauth_test

import (
	"net/http"
	"net/url"
	"testing"

	"github.com/latchkey/latchkey/internal/apptest"
	"github.com/latchkey/latchkey/internal/flowtoken"
	"github.com/latchkey/latchkey/internal/ids"
	"github.com/oauth2-proxy/mockoidc"
)

// An OAuth login sent with the session the backend holds joins it
// (session.Held), and a stale session fails the call before the OAuth
// token is spent.
func TestOAuthLoginJoinsHeldSession(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		m := startGoogle(t, e)
		org := e.CreateOrg("acme", "NOT_ALLOWED", nil)
		e.CreateMember(org, "ada@acme.test")
		held, _ := e.LoginByEmailOTP(org, "ada@acme.test")
		m.QueueUser(&mockoidc.MockUser{Subject: "g-ada", Email: "ada@acme.test", EmailVerified: true})
		verifier := ids.Token()
		u := browse(t, e, startPath(e, "google", url.Values{"organization_id": {org}, "pkce_code_challenge": {flowtoken.S256(verifier)}}))
		body := map[string]any{"oauth_token": u.Query().Get("token"), "pkce_code_verifier": verifier, "session_token": "no-such-session"}
		apptest.Want(t, e.Backend(http.MethodPost, "/v1/b2b/oauth/authenticate", body), 404, "session_not_found")
		body["session_token"] = held
		e.WantJoined(t, e.Backend(http.MethodPost, "/v1/b2b/oauth/authenticate", body), held, "email_otp", "oauth")
	})
}
