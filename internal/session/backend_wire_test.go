package session_test

import (
	"net/http"
	"testing"

	"github.com/latchkey/latchkey/internal/apptest"
)

// The backend sessions/authenticate answers B2BSessionsAuthenticateResponse
// as the Node client declares it: the member's id is in member_session and
// member, with no top-level member_id (the shared SessionResponse once
// carried the SDK type's one onto this face). Asked on each path the
// answer is built by: first and again from memory (preencoded), with a
// token and a JWT, and with an authorization check's verdict.
func TestBackendSessionAnswerHasNoTopLevelMemberID(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		org := e.CreateOrg("acme", "ALL_ALLOWED", nil)
		token, jwt, _ := e.Login(org, "ada@acme.test")
		verdict := func() apptest.Resp {
			return e.Backend(http.MethodPost, "/v1/b2b/sessions/authenticate", map[string]any{"session_token": token,
				"authorization_check": map[string]any{"organization_id": org, "resource_id": "stytch.self", "action": "update.info.name"}})
		}
		for _, call := range []struct {
			name string
			do   func() apptest.Resp
		}{
			{"token", func() apptest.Resp { return check(e, token, "") }},
			{"token again", func() apptest.Resp { return check(e, token, "") }},
			{"jwt", func() apptest.Resp { return check(e, "", jwt) }},
			{"jwt again", func() apptest.Resp { return check(e, "", jwt) }},
			{"verdict", verdict},
		} {
			r := call.do()
			apptest.Want(t, r, 200, "")
			if _, ok := r.Body["member_id"]; ok {
				t.Errorf("%s: the backend answer has a top-level member_id: %s", call.name, r.Raw)
			}
			ms, _ := r.Body["member_session"].(map[string]any)
			if ms == nil || ms["member_id"] == "" || ms["member_id"] == nil {
				t.Errorf("%s: member_session lost its member_id: %s", call.name, r.Raw)
			}
		}
	})
}
