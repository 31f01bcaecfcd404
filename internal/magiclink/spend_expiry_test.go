package magiclink_test

import (
	"context"
	"testing"

	"github.com/latchkey/latchkey/internal/apierr"
	"github.com/latchkey/latchkey/internal/apptest"
	"github.com/latchkey/latchkey/internal/magiclink"
	"github.com/latchkey/latchkey/internal/store"
)

// A link's spend checks its expiry itself, at the clock's time of the
// spend: the redemption reads the link, then may wait for its member's
// row before spending it, and a link that expired meanwhile must not be
// spent.
func TestLinkNotSpentPastItsExpiry(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		org := e.CreateOrg("acme", "NOT_ALLOWED", nil)
		mid := e.CreateMember(org, "ada@acme.test")
		apptest.Want(t, e.SendLink(org, "ada@acme.test", nil), 200, "")
		ctx := context.Background()
		var id string
		var expires int64
		if err := e.App.DB.Read().QueryRowContext(ctx, `SELECT magic_link_id, expires_at FROM magic_links WHERE member_id = $1
			AND used_at IS NULL`, mid).Scan(&id, &expires); err != nil {
			t.Fatal(err)
		}
		e.Clock.Advance(store.Time(expires).Sub(e.Clock.Now()))
		links := magiclink.New(magiclink.Deps{DB: e.App.DB, Clock: e.App.Clock, Orgs: e.App.Orgs, Sessions: e.App.Sessions})
		err := e.App.DB.Tx(ctx, func(q store.Querier) error { return links.Spend(ctx, q, id) })
		if !apierr.Is(err, apierr.UnableToAuthMagicLink) {
			t.Fatalf("spending a link at its expiry: %v, want unable_to_auth_magic_link", err)
		}
		if n := e.Count(`SELECT COUNT(*) FROM magic_links WHERE magic_link_id = $1 AND used_at IS NULL`, id); n != 1 {
			t.Fatal("the expired link was spent")
		}
	})
}
