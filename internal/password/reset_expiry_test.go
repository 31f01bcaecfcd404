package password_test

import (
	"context"
	"testing"

	"github.com/latchkey/latchkey/internal/apierr"
	"github.com/latchkey/latchkey/internal/apptest"
	"github.com/latchkey/latchkey/internal/store"
)

// A reset token's spend checks its expiry itself: the new password is
// hashed (argon2, hundreds of milliseconds) between the token's lookup
// and its spend, and a token that expired meanwhile must not be spent.
func TestResetTokenNotSpentPastItsExpiry(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		org := e.CreateOrg("acme", "ALL_ALLOWED", nil)
		e.CreateMember(org, "ada@acme.test")
		e.SetPassword(org, "ada@acme.test", apptest.StrongPassword)
		apptest.Want(t, e.ResetStart(org, "ada@acme.test", nil), 200, "")
		ctx := context.Background()
		var id string
		var expires int64
		if err := e.App.DB.Read().QueryRowContext(ctx, `SELECT reset_id, expires_at FROM password_resets WHERE email_address = $1
			AND used_at IS NULL`, "ada@acme.test").Scan(&id, &expires); err != nil {
			t.Fatal(err)
		}
		e.Clock.Advance(store.Time(expires).Sub(e.Clock.Now()))
		svc := existingResetService(t, e)
		err := e.App.DB.Tx(ctx, func(q store.Querier) error { return svc.ConsumeReset(ctx, q, id) })
		if !apierr.Is(err, apierr.UnableToAuthMagicLink) {
			t.Fatalf("spending a reset token at its expiry: %v, want unable_to_auth_magic_link", err)
		}
		if n := e.Count(`SELECT COUNT(*) FROM password_resets WHERE reset_id = $1 AND used_at IS NULL`, id); n != 1 {
			t.Fatal("the expired reset token was spent")
		}
	})
}
