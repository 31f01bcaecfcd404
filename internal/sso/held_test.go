package sso_test

import (
	"net/http"
	"testing"

	"github.com/latchkey/latchkey/internal/apptest"
	"github.com/oauth2-proxy/mockoidc"
)

// An SSO login sent with the session the backend holds joins it
// (session.Held), and a stale session fails the call before the SSO token
// is spent.
func TestSSOLoginJoinsHeldSession(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		s := newOIDCEnv(t, e)
		e.CreateMember(s.orgID, "lin@acme.test")
		held, _ := e.LoginByEmailOTP(s.orgID, "lin@acme.test")
		token := tokenFrom(t, s.login(&mockoidc.MockUser{Subject: "oidc-lin", Email: "lin@acme.test", EmailVerified: true}, nil))
		body := map[string]any{"sso_token": token, "session_token": "no-such-session"}
		apptest.Want(t, e.Backend(http.MethodPost, "/v1/b2b/sso/authenticate", body), 404, "session_not_found")
		body["session_token"] = held
		e.WantJoined(t, e.Backend(http.MethodPost, "/v1/b2b/sso/authenticate", body), held, "email_otp", "sso")
	})
}
