package discovery_test

import (
	"net/http"
	"testing"

	"github.com/latchkey/latchkey/internal/apptest"
)

// Listing discovered organizations names the caller once: an IST, a
// session token or a session JWT in the body, not several
// (too_many_session_arguments, as the API family answers).
func TestDiscoveryListTakesOneCaller(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		org := e.CreateOrg("acme", "ALL_ALLOWED", nil)
		token, jwt, _ := e.Login(org, "ada@acme.test")
		ist := e.Discover("ada@acme.test")["intermediate_session_token"].(string)
		const path = "/v1/b2b/discovery/organizations"
		for _, body := range []map[string]any{
			{"intermediate_session_token": ist, "session_token": token},
			{"intermediate_session_token": ist, "session_jwt": jwt},
			{"session_token": token, "session_jwt": jwt},
		} {
			apptest.Want(t, e.Backend(http.MethodPost, path, body), 400, "too_many_session_arguments")
		}
		for _, body := range []map[string]any{{"intermediate_session_token": ist}, {"session_token": token}, {"session_jwt": jwt}} {
			apptest.Want(t, e.Backend(http.MethodPost, path, body), 200, "")
		}
	})
}
