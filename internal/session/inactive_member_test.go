package session_test

import (
	"testing"

	"github.com/latchkey/latchkey/internal/apptest"
	"github.com/latchkey/latchkey/internal/organization"
)

// A session of a member who is no longer active names no one. Deleting a
// member revokes their sessions only once the deletion has committed
// (organization.DeleteMemberIn), and that revocation can fail after the
// commit; until it lands, the member's status is what ends the sessions.
// Here the status changes without any revocation, as in that window.
func TestSessionOfAMemberNoLongerActiveIsNotFound(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		org := e.CreateOrg("acme", "ALL_ALLOWED", nil)
		token, jwt, member := e.Login(org, "ada@acme.test")
		apptest.Want(t, check(e, token, ""), 200, "")
		apptest.Want(t, check(e, "", jwt), 200, "")
		if _, err := e.App.DB.ExecContext(t.Context(), `UPDATE members SET status = $1 WHERE member_id = $2`,
			organization.StatusDeleted, member); err != nil {
			t.Fatal(err)
		}
		var revoked int
		if err := e.App.DB.QueryRowContext(t.Context(), `SELECT COUNT(*) FROM member_sessions
			WHERE member_id = $1 AND revoked_at IS NOT NULL`, member).Scan(&revoked); err != nil || revoked != 0 {
			t.Fatalf("the test needs the session unrevoked: %d revoked (%v)", revoked, err)
		}
		apptest.Want(t, check(e, token, ""), 404, "session_not_found")
		apptest.Want(t, check(e, "", jwt), 404, "session_not_found")
	})
}
