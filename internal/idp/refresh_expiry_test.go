package idp_test

import (
	"testing"
	"time"

	"github.com/latchkey/latchkey/internal/apptest"
	"github.com/latchkey/latchkey/internal/ids"
	"github.com/latchkey/latchkey/internal/store"
	"github.com/latchkey/latchkey/internal/store/storetest"
)

// A refresh token's spend checks its expiry itself: the refresh reads the
// token, then waits for its member's row (holdMember) before spending
// it, and a token that expired meanwhile refreshes nothing. It is no
// replay either: its family is not revoked. PostgreSQL only: the wait is
// on a row lock (storetest.Interleave); on SQLite the refresh waits for
// the one writer before it reads the token at all.
func TestRefreshTokenNotSpentPastItsExpiry(t *testing.T) {
	t.Parallel()
	e := apptest.New(t, apptest.Postgres(t), nil)
	f := setup(t, e)
	id, secret := f.client("third_party", nil)
	rt := f.grant(id, secret, "openid", "offline_access").Body["refresh_token"].(string)
	var expires int64
	var family string
	if err := e.App.DB.Read().QueryRowContext(t.Context(), `SELECT expires_at, family_id FROM idp_tokens WHERE token_hash = $1`,
		ids.Hash(rt)).Scan(&expires, &family); err != nil {
		t.Fatal(err)
	}
	var r apptest.Resp
	_, _ = storetest.Interleave(t, e.App.DB, func(q store.Querier) error {
		_, err := q.ExecContext(t.Context(), `SELECT 1 FROM members WHERE member_id = $1 FOR UPDATE`, f.member)
		return err
	}, func() error {
		r = f.refresh(id, secret, rt, "")
		return nil
	}, func(store.Querier) error {
		e.Clock.Advance(store.Time(expires).Sub(e.Clock.Now()) + time.Millisecond)
		return nil
	})
	oauthErr(t, r, 400, "invalid_grant")
	if n := e.Count(`SELECT COUNT(*) FROM idp_tokens WHERE token_hash = $1 AND used_at IS NULL`, ids.Hash(rt)); n != 1 {
		t.Fatal("the expired refresh token was spent")
	}
	if n := e.Count(`SELECT COUNT(*) FROM idp_tokens WHERE family_id = $1 AND revoked_at IS NOT NULL`, family); n != 0 {
		t.Fatalf("%d tokens of the family revoked: an expired token is no replay", n)
	}
}
