package emailotp_test

import (
	"testing"

	"github.com/latchkey/latchkey/internal/apptest"
	"github.com/latchkey/latchkey/internal/emailotp"
)

// A code's check counts the attempt on the code's row (a row lock on
// email_otps) and spends it, and the login then updates the member's row
// (MarkEmailVerified); an admin's address change updates the member's row
// and then spends the member's codes (ReleaseAddress). A change landing
// between the two steps would deadlock with the login on PostgreSQL,
// broken after deadlock_timeout and one side run again. The check holds
// the member's row before it touches the code, so the change waits for
// the login, which runs once and whose session the change then ends.
func TestCodeCheckAndAddressChangeDoNotDeadlock(t *testing.T) {
	t.Parallel()
	e := apptest.New(t, apptest.Postgres(t), nil)
	ctx := t.Context()
	orgID := e.CreateOrg("acme", "NOT_ALLOWED", nil)
	mid := e.CreateMember(orgID, "ada@acme.test")
	apptest.Want(t, e.SendCode(orgID, "ada@acme.test"), 200, "")
	_, codes := e.LastMail("ada@acme.test")
	org, err := e.App.Orgs.Get(ctx, e.Project.Project.ID, orgID)
	if err != nil {
		t.Fatal(err)
	}

	otp := emailotp.New(emailotp.Deps{DB: e.App.DB, Clock: e.App.Clock, Orgs: e.App.Orgs, Sessions: e.App.Sessions, Box: e.App.Box})
	spend, complete := otp.LoginSteps(ctx, emailotp.AuthParams{Project: e.Project.Project, Code: codes[0]}, org, "ada@acme.test")
	e.LoginDuringAddressChange(t, orgID, mid, "someone-else@acme.test", spend, complete)
	if n := e.Count(`SELECT COUNT(*) FROM member_sessions WHERE member_id = $1 AND revoked_at IS NULL`, mid); n != 0 {
		t.Fatalf("%d live sessions of the member after the change", n)
	}
}
