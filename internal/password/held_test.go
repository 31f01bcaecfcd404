package password_test

import (
	"net/http"
	"testing"

	"github.com/latchkey/latchkey/internal/apptest"
)

// A password login sent with the session the backend holds joins it
// (session.Held); a stale session fails the call before the password is
// checked.
func TestPasswordLoginJoinsHeldSession(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		org := e.CreateOrg("acme", "ALL_ALLOWED", nil)
		e.SetPassword(org, "ada@acme.test", strong)
		held, _ := e.LoginByEmailOTP(org, "ada@acme.test")
		body := map[string]any{"organization_id": org, "email_address": "ada@acme.test", "password": strong,
			"session_token": "no-such-session"}
		apptest.Want(t, e.Backend(http.MethodPost, "/v1/b2b/passwords/authenticate", body), 404, "session_not_found")
		body["session_token"] = held
		e.WantJoined(t, e.Backend(http.MethodPost, "/v1/b2b/passwords/authenticate", body), held, "email_otp", "password")
	})
}
