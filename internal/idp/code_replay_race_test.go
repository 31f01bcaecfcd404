package idp_test

import (
	"testing"

	"github.com/latchkey/latchkey/internal/apptest"
)

// A code presented again while its first use is still issuing tokens must
// end those tokens (RFC 6749 4.1.2: a code used twice revokes what it
// issued). On PostgreSQL READ COMMITTED, a code spent in a statement of its
// own, before the tokens' transaction, let the replay be refused and run
// its revoke while the tokens were not yet visible to it: they survived.
// The code is now spent in the tokens' transaction, so the replay's spend
// waits for that commit and its revoke sees them. holdIssues keeps the
// first exchange open at its token insert until the replay waits for it.
func TestCodeReplayDuringIssueEndsTheTokens(t *testing.T) {
	t.Parallel()
	for _, kind := range []string{"first_party", "third_party_public"} {
		t.Run(kind, func(t *testing.T) {
			t.Parallel()
			e := apptest.New(t, apptest.Postgres(t), nil)
			f := setup(t, e)
			id, secret := f.client(kind, nil)
			_, back := f.authorize(authReq(id, "openid", "offline_access"), true)
			code := back.Get("code")
			held := holdIssues(t, e)
			first := make(chan apptest.Resp, 1)
			go func() { first <- f.exchange(id, secret, code, verifier) }()
			held()
			oauthErr(t, f.exchange(id, secret, code, verifier), 400, "invalid_grant")
			tok := <-first
			apptest.Want(t, tok, 200, "")
			if n := f.liveTokens(t, id); n != 0 {
				t.Fatalf("%d tokens of a code presented twice outlived the replay", n)
			}
			oauthErr(t, f.refresh(id, secret, tok.Body["refresh_token"].(string), ""), 400, "invalid_grant")
		})
	}
}
