package idp_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/latchkey/latchkey/internal/apptest"
)

func rows(t *testing.T, e *apptest.Env, query string, args ...any) int {
	t.Helper()
	var n int
	if err := e.App.DB.Read().QueryRowContext(context.Background(), query, args...).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// The sweeper removes expired token rows and everything a deleted member
// left behind (consent and tokens), and keeps what is still live.
func TestSweeperDeletesExpiredAndOrphanedProviderRows(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		ctx := context.Background()
		f := setup(t, e)
		id, secret := f.client("third_party", nil)
		_, back := f.authorize(authReq(id, "openid", "offline_access"), true)
		apptest.Want(t, f.exchange(id, secret, back.Get("code"), verifier), 200, "")

		// A second member consents too, and is then deleted.
		bobID := e.CreateMember(f.org, "bob@acme.test")
		bob, _ := e.LoginByEmailOTP(f.org, "bob@acme.test")
		f.session, bob = bob, f.session
		_, back = f.authorize(authReq(id, "openid", "offline_access"), true)
		apptest.Want(t, f.exchange(id, secret, back.Get("code"), verifier), 200, "")
		f.session = bob
		if rows(t, e, `SELECT COUNT(*) FROM idp_grants`) != 2 || rows(t, e, `SELECT COUNT(*) FROM idp_tokens`) != 4 {
			t.Fatal("setup: want two grants and four tokens")
		}
		apptest.Want(t, e.Backend(http.MethodDelete, "/v1/b2b/organizations/"+f.org+"/members/"+bobID, nil), 200, "")

		sw := e.App.Sweeper()
		counts, err := sw.Once(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if n := rows(t, e, `SELECT COUNT(*) FROM idp_grants WHERE member_id = $1`, bobID); n != 0 {
			t.Fatalf("a deleted member's consent survived: %d", n)
		}
		if n := rows(t, e, `SELECT COUNT(*) FROM idp_tokens WHERE member_id = $1`, bobID); n != 0 {
			t.Fatalf("a deleted member's tokens survived: %d", n)
		}
		if rows(t, e, `SELECT COUNT(*) FROM idp_grants WHERE member_id = $1`, f.member) != 1 ||
			rows(t, e, `SELECT COUNT(*) FROM idp_tokens WHERE member_id = $1`, f.member) != 2 || counts["idp_tokens"] != 0 {
			t.Fatalf("live rows were swept: %v", counts)
		}

		// Past the access token's expiry (plus grace) only the refresh token
		// is left; past the refresh token's, nothing. Consent stays on record.
		e.Clock.Advance(26 * time.Hour)
		if _, err := sw.Once(ctx); err != nil {
			t.Fatal(err)
		}
		if n := rows(t, e, `SELECT COUNT(*) FROM idp_tokens WHERE kind = 'refresh'`); n != 1 || rows(t, e, `SELECT COUNT(*) FROM idp_tokens`) != 1 {
			t.Fatalf("after the access token expired: %d refresh tokens, %d rows", n, rows(t, e, `SELECT COUNT(*) FROM idp_tokens`))
		}
		e.Clock.Advance(31 * 24 * time.Hour)
		if _, err := sw.Once(ctx); err != nil {
			t.Fatal(err)
		}
		if rows(t, e, `SELECT COUNT(*) FROM idp_tokens`) != 0 || rows(t, e, `SELECT COUNT(*) FROM idp_grants`) != 1 {
			t.Fatal("expired refresh tokens survived, or consent was swept")
		}
	})
}
