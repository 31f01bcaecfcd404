package session_test

import (
	"context"
	"testing"

	"github.com/latchkey/latchkey/internal/apierr"
	"github.com/latchkey/latchkey/internal/apptest"
	"github.com/latchkey/latchkey/internal/ids"
	"github.com/latchkey/latchkey/internal/session"
	"github.com/latchkey/latchkey/internal/store"
)

// An IST's spend checks its expiry itself: the redemption reads the IST,
// then may wait for its member's row before spending it, and an IST that
// expired meanwhile must not be spent (nor the login it carries go on).
func TestISTNotSpentPastItsExpiry(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		org, _ := e.MFAMember()
		ist, _ := e.MFALogin(org, "ada@secure.test")
		ctx := context.Background()
		var id string
		if err := e.App.DB.Read().QueryRowContext(ctx, `SELECT intermediate_session_id FROM intermediate_sessions WHERE token_hash = $1`,
			ids.Hash(ist)).Scan(&id); err != nil {
			t.Fatal(err)
		}
		e.Clock.Advance(session.IntermediateLifetime)
		err := e.App.DB.Tx(ctx, func(q store.Querier) error { return e.App.Sessions.SpendIntermediate(ctx, q, id) })
		if !apierr.Is(err, apierr.IntermediateSessionNotFound) {
			t.Fatalf("spending an IST at its expiry: %v, want intermediate_session_not_found", err)
		}
		if n := e.Count(`SELECT COUNT(*) FROM intermediate_sessions WHERE intermediate_session_id = $1 AND used_at IS NULL`, id); n != 1 {
			t.Fatal("the expired IST was spent")
		}
	})
}
