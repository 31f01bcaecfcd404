package idp_test

import (
	"testing"

	"github.com/latchkey/latchkey/internal/apptest"
)

// holdIssues makes every insert of an idp_tokens row wait, inside its
// transaction, until another backend waits for it (holdUntilWaited), and
// returns a function that waits until an insert is held.
func holdIssues(t *testing.T, e *apptest.Env) (held func()) {
	t.Helper()
	return holdUntilWaited(t, e, "hold_insert",
		`CREATE TRIGGER hold_insert AFTER INSERT ON idp_tokens FOR EACH ROW EXECUTE FUNCTION hold_insert()`)
}

// A revoke that lands while a code exchange or a refresh is writing its
// tokens (after its consent check, before its commit) must end them: on
// PostgreSQL READ COMMITTED the revoke's UPDATE does not see rows
// inserted by a transaction still open, so without an ordering the new
// tokens would outlive it, with no consent left to revoke them by. Both
// hold the member's row first (the request FOR SHARE, the revoke FOR NO
// KEY UPDATE), so the revoke waits for the request's commit and its
// statements then see the tokens. holdIssues keeps the request open at its
// first token insert until the revoke waits for it.
func TestRevokeDuringIssueEndsTheNewTokens(t *testing.T) {
	t.Parallel()
	requests := []struct {
		name    string
		prepare func(f *fixture, id, secret string) func() apptest.Resp
	}{
		{"code exchange", func(f *fixture, id, secret string) func() apptest.Resp {
			_, back := f.authorize(authReq(id, "openid", "offline_access"), true)
			return func() apptest.Resp { return f.exchange(id, secret, back.Get("code"), verifier) }
		}},
		{"refresh", func(f *fixture, id, secret string) func() apptest.Resp {
			rt := f.grant(id, secret, "openid", "offline_access").Body["refresh_token"].(string)
			return func() apptest.Resp { return f.refresh(id, secret, rt, "") }
		}},
	}
	for _, c := range requests {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			e := apptest.New(t, apptest.Postgres(t), nil)
			f := setup(t, e)
			id, secret := f.client("third_party", nil)
			run := c.prepare(f, id, secret)
			held := holdIssues(t, e)
			answered := make(chan apptest.Resp, 1)
			go func() { answered <- run() }()
			held()
			apptest.Want(t, e.Backend("POST", "/v1/b2b/organizations/"+f.org+"/members/"+f.member+"/connected_apps/"+id+"/revoke", nil), 200, "")
			tok := <-answered
			apptest.Want(t, tok, 200, "") // it passed its consent check before the revoke
			if n := f.liveTokens(t, id); n != 0 {
				t.Fatalf("%d tokens outlived a revoke that ran while they were issued", n)
			}
			oauthErr(t, f.refresh(id, secret, tok.Body["refresh_token"].(string), ""), 400, "invalid_grant")
		})
	}
}
