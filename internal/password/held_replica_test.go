package password_test

import (
	"net/http"
	"testing"

	"github.com/latchkey/latchkey/internal/apptest"
)

// A session revoked on one replica may still pass a check on another for
// up to a second (the hot cache). Setting the address's password with it
// must not happen in that second: the reset's transaction asks the
// database whether the session still stands.
func TestSessionResetRefusedForASessionRevokedElsewhere(t *testing.T) {
	t.Parallel()
	apptest.EachPair(t, func(t *testing.T, e1, e2 *apptest.Env) {
		org := e1.CreateOrg("acme", "ALL_ALLOWED", nil)
		e1.CreateMember(org, "ada@acme.test")
		passwords := func() int { return e1.Count(`SELECT count(*) FROM member_passwords`) }
		newSession := func() string {
			tok, _ := e1.LoginByEmailOTP(org, "ada@acme.test")
			return tok
		}
		apptest.RevokedButCached(t, e1, e2, newSession, func() {}, func(held string) {
			before := passwords()
			apptest.Want(t, e1.Backend(http.MethodPost, "/v1/b2b/passwords/session/reset", map[string]any{"organization_id": org,
				"session_token": held, "password": "Gravel-Mitten-Sonnet-29"}), 404, "session_not_found")
			if got := passwords(); got != before {
				t.Fatal("a session revoked on the other replica set the password")
			}
		})
		// A live session still sets it.
		apptest.Want(t, e1.Backend(http.MethodPost, "/v1/b2b/passwords/session/reset", map[string]any{"organization_id": org,
			"session_token": newSession(), "password": "Gravel-Mitten-Sonnet-29"}), 200, "")
	})
}
