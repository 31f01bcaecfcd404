package magiclink_test

import (
	"testing"

	"github.com/latchkey/latchkey/internal/apptest"
	"github.com/latchkey/latchkey/internal/magiclink"
)

// A link's redemption spends the link (a row lock on magic_links) and then
// logs its member in, which updates the member's row (MarkEmailVerified);
// an admin's address change updates the member's row and then spends the
// member's links (ReleaseAddress). A change landing between the two steps
// would deadlock with the redemption on PostgreSQL, broken after
// deadlock_timeout and one side run again. The redemption holds the
// member's row before the spend, so the change waits for the login, which
// runs once and whose session the change then ends.
func TestLinkRedemptionAndAddressChangeDoNotDeadlock(t *testing.T) {
	t.Parallel()
	e := apptest.New(t, apptest.Postgres(t), nil)
	ctx := t.Context()
	org := e.CreateOrg("acme", "NOT_ALLOWED", nil)
	mid := e.CreateMember(org, "ada@acme.test")
	apptest.Want(t, e.SendLink(org, "ada@acme.test", nil), 200, "")
	links, _ := e.LastMail("ada@acme.test")
	token := apptest.MagicLinkToken(t, links[0])

	links2 := magiclink.New(magiclink.Deps{DB: e.App.DB, Clock: e.App.Clock, Orgs: e.App.Orgs, Sessions: e.App.Sessions})
	spend, complete := links2.AuthenticateSteps(ctx, magiclink.AuthParams{Project: e.Project.Project, Token: token})
	e.LoginDuringAddressChange(t, org, mid, "someone-else@acme.test", spend, complete)
	if n := e.Count(`SELECT COUNT(*) FROM member_sessions WHERE member_id = $1 AND revoked_at IS NULL`, mid); n != 0 {
		t.Fatalf("%d live sessions of the member after the change", n)
	}
}
