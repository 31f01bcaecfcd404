package session_test

import (
	"net/http"
	"testing"

	"github.com/latchkey/latchkey/internal/apptest"
)

// A session check names its session once: a token and a JWT together are
// too_many_session_arguments, as the API family answers, even when both
// are the same session's (the server does not pick one for the caller).
func TestAuthenticateTakesOneSessionArgument(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		org := e.CreateOrg("acme", "ALL_ALLOWED", nil)
		token, jwt, _ := e.Login(org, "ada@acme.test")
		other, _, _ := e.Login(org, "bob@acme.test")
		for _, body := range []map[string]any{
			{"session_token": token, "session_jwt": jwt},
			{"session_token": other, "session_jwt": jwt},
		} {
			apptest.Want(t, e.Backend(http.MethodPost, "/v1/b2b/sessions/authenticate", body), 400, "too_many_session_arguments")
		}
		apptest.Want(t, e.Backend(http.MethodPost, "/v1/b2b/sessions/authenticate", map[string]any{"session_token": token}), 200, "")
		apptest.Want(t, e.Backend(http.MethodPost, "/v1/b2b/sessions/authenticate", map[string]any{"session_jwt": jwt}), 200, "")
		// The password reset by session, which names its session the
		// same way, answers alike.
		apptest.Want(t, e.Backend(http.MethodPost, "/v1/b2b/passwords/session/reset", map[string]any{"organization_id": org,
			"password": apptest.StrongPassword, "session_token": token, "session_jwt": jwt}), 400, "too_many_session_arguments")
	})
}

// A revoke names one target: more than one of member_session_id,
// session_token, session_jwt and member_id is refused whole with
// too_many_session_revoke_arguments, and nothing is revoked.
func TestRevokeTakesOneTarget(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		org := e.CreateOrg("acme", "ALL_ALLOWED", nil)
		token, jwt, member := e.Login(org, "ada@acme.test")
		other, _, _ := e.Login(org, "bob@acme.test")
		r := e.Backend(http.MethodPost, "/v1/b2b/sessions/authenticate", map[string]any{"session_token": token})
		apptest.Want(t, r, 200, "")
		id := r.Body["member_session"].(map[string]any)["member_session_id"].(string)
		for _, body := range []map[string]any{
			{"member_session_id": id, "session_token": token},
			{"session_token": other, "session_jwt": jwt},
			{"session_jwt": jwt, "member_id": member},
			{"member_session_id": id, "member_id": member},
			{"member_session_id": id, "session_token": token, "session_jwt": jwt, "member_id": member},
		} {
			apptest.Want(t, e.Backend(http.MethodPost, "/v1/b2b/sessions/revoke", body), 400, "too_many_session_revoke_arguments")
		}
		for _, tok := range []string{token, other} {
			apptest.Want(t, e.Backend(http.MethodPost, "/v1/b2b/sessions/authenticate", map[string]any{"session_token": tok}), 200, "")
		}
		apptest.Want(t, e.Backend(http.MethodPost, "/v1/b2b/sessions/revoke", map[string]any{"member_session_id": id}), 200, "")
		apptest.Want(t, e.Backend(http.MethodPost, "/v1/b2b/sessions/authenticate", map[string]any{"session_token": token}), 404, "session_not_found")
	})
}
