package sso_test

import (
	"net/http"
	"testing"
	"time"

	"github.com/latchkey/latchkey/internal/apptest"
)

// The SSO token a login hands to the customer's page lives ten minutes: it
// is redeemed within them, and is sso_token_not_found once they are over.
func TestSSOTokenExpires(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		s := newSAMLEnv(t, e, nil)
		s.idp.login("ada@acme.test", "okta-user-1", "Ada", "Lovelace")
		// Both logins finish now, while the IdP's assertions are fresh.
		acs, form := s.idp.follow(s.start(nil))
		early := tokenFrom(t, s.post(acs, form))
		acs, form = s.idp.follow(s.start(nil))
		late := tokenFrom(t, s.post(acs, form))
		authenticate := func(tok string) apptest.Resp {
			t.Helper()
			return s.SDK(http.MethodPost, "/b2b/sso/authenticate", map[string]any{"sso_token": tok, "session_duration_minutes": 60}, "")
		}

		e.Clock.Advance(10*time.Minute - time.Second)
		apptest.Want(t, authenticate(early), 200, "")
		e.Clock.Advance(time.Second)
		apptest.Want(t, authenticate(late), 404, "sso_token_not_found")
	})
}
