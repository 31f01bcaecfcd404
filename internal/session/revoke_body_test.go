package session_test

import (
	"net/http"
	"testing"

	"github.com/latchkey/latchkey/internal/apptest"
)

// The SDK's revokes take no fields, and the SDK posts no body or {}: a
// body that is not a JSON object is invalid_request, as at the backend's
// revoke, and ends no session; no body, {} and an object with fields the
// route ignores still revoke.
func TestSDKRevokeRefusesABadBody(t *testing.T) {
	bad := []string{`{`, `[]`, `"x"`, "\x00", "{\"a\":\"\xff\"}", `{"a":"\ud800"}`, `5`}
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		org := e.CreateOrg("acme", "ALL_ALLOWED", nil)
		e.CreateAdmin(org, "ada@acme.test")
		admin := e.SessionFor(org, "ada@acme.test")
		alive := func(tok string) apptest.Resp {
			return e.SDK(http.MethodPost, "/b2b/sessions/authenticate", map[string]any{}, tok)
		}
		t.Run("own session", func(t *testing.T) {
			token := e.SessionFor(org, "grace@acme.test")
			for _, body := range bad {
				apptest.Want(t, e.SDK(http.MethodPost, "/b2b/sessions/revoke", body, token), 400, "invalid_request")
				apptest.Want(t, alive(token), 200, "")
				apptest.Want(t, e.Backend(http.MethodPost, "/v1/b2b/sessions/revoke", body), 400, "invalid_request")
			}
			for _, body := range []any{nil, "", `{}`, ` {"dfp_telemetry_id":"x"} `} {
				token := e.SessionFor(org, "grace@acme.test")
				apptest.Want(t, e.SDK(http.MethodPost, "/b2b/sessions/revoke", body, token), 200, "")
				apptest.Want(t, alive(token), 404, "session_not_found")
			}
		})
		t.Run("a member's sessions", func(t *testing.T) {
			victim, _, mid := e.Login(org, "bob@acme.test")
			for _, body := range bad {
				apptest.Want(t, e.SDK(http.MethodPost, "/b2b/sessions/revoke/"+mid, body, admin), 400, "invalid_request")
				apptest.Want(t, alive(victim), 200, "")
			}
			apptest.Want(t, e.SDK(http.MethodPost, "/b2b/sessions/revoke/"+mid, `{}`, admin), 200, "")
			apptest.Want(t, alive(victim), 404, "session_not_found")
		})
	})
}
