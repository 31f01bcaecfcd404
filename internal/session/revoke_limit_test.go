package session_test

import (
	"fmt"
	"net/http"
	"testing"

	"github.com/latchkey/latchkey/internal/apptest"
	"github.com/latchkey/latchkey/internal/session"
)

// The SDK's revoke takes the session from the client, so a token that
// names no session counts against the client's address as a failed
// session check does (session.FailuresPerIP): past the limit a wrong
// token is too_many_requests at the revoke and at sessions/authenticate,
// while a valid session still authenticates and revokes.
func TestSDKRevokeFailuresCountedPerAddress(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		org := e.CreateOrg("acme", "ALL_ALLOWED", nil)
		token := e.SessionFor(org, "ada@acme.test")
		revoke := func(tok string) apptest.Resp {
			return e.SDK(http.MethodPost, "/b2b/sessions/revoke", map[string]any{}, tok)
		}
		check := func(tok string) apptest.Resp {
			return e.SDK(http.MethodPost, "/b2b/sessions/authenticate", map[string]any{}, tok)
		}
		for i := range session.FailuresPerIP.Limit {
			apptest.Want(t, revoke(fmt.Sprintf("not-a-session-%d", i)), 404, "session_not_found")
		}
		apptest.Want(t, revoke("not-a-session-either"), 429, "too_many_requests")
		apptest.Want(t, check("not-a-session-either"), 429, "too_many_requests")
		apptest.Want(t, check(token), 200, "")
		apptest.Want(t, revoke(token), 200, "")
		apptest.Want(t, check(token), 429, "too_many_requests") // revoked now: a failure, and the address is over
	})
}
