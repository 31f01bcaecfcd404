package session_test

import (
	"net/http"
	"testing"

	"github.com/latchkey/latchkey/internal/apptest"
)

// Revocation is scoped to the caller's project: another project's secret
// naming this project's session (by id or token) or member ends nothing,
// and is answered as for a session or member it does not have.
func TestRevokeIsBoundToItsProject(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		org := e.CreateOrg("acme", "ALL_ALLOWED", nil)
		token, _, member := e.Login(org, "ada@acme.test")
		r := check(e, token, "")
		apptest.Want(t, r, 200, "")
		ms, _ := r.Body["member_session"].(map[string]any)
		sessionID, _ := ms["member_session_id"].(string)
		if sessionID == "" {
			t.Fatalf("no member_session_id in %s", r.Raw)
		}
		other := e.NewProject("Other")
		revoke := func(body map[string]any) apptest.Resp {
			return e.Do(http.MethodPost, "/v1/b2b/sessions/revoke", body, nil, other.Project.ID, other.Secret)
		}
		apptest.Want(t, revoke(map[string]any{"member_session_id": sessionID}), 404, "session_not_found")
		apptest.Want(t, revoke(map[string]any{"session_token": token}), 404, "session_not_found")
		apptest.Want(t, revoke(map[string]any{"member_id": member}), 404, "member_not_found")
		apptest.Want(t, check(e, token, ""), 200, "")
	})
}
