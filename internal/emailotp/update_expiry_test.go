package emailotp_test

import (
	"testing"

	"github.com/latchkey/latchkey/internal/apptest"
	"github.com/latchkey/latchkey/internal/store"
	"github.com/latchkey/latchkey/internal/store/storetest"
)

// An email-update code is checked after the check has held the members
// whose updates are pending, which on PostgreSQL may wait for another
// transaction holding one of them (an admin's change, a login). A code
// that expired while the check waited must not be spent, nor change the
// address: the comparison and the spend go by the clock as it is once the
// rows are held, as a login code's and a magic link's do
// (TestLinkNotSpentPastItsExpiry). The member's row is held open
// (storetest.Interleave) while the check runs, and the clock reaches the
// code's expiry before it is let go.
func TestEmailUpdateCodeNotSpentPastItsExpiryOnPostgres(t *testing.T) {
	t.Parallel()
	e := apptest.New(t, apptest.Postgres(t), nil)
	ctx := t.Context()
	orgID := e.CreateOrg("acme", "NOT_ALLOWED", nil)
	mid := e.CreateMember(orgID, "bob@acme.test")
	sess := e.SessionFor(orgID, "bob@acme.test")
	r := e.StartEmailUpdate(sess, "", map[string]any{"email_address": "robert@acme.test", "delivery_method": "EMAIL_OTP"})
	apptest.Want(t, r, 200, "")
	_, codes := e.LastMail("robert@acme.test")
	if len(codes) != 1 {
		t.Fatalf("update mail: codes %v", codes)
	}
	var expires int64
	if err := e.App.DB.Read().QueryRowContext(ctx, `SELECT expires_at FROM email_update_otps WHERE member_id = $1
		AND used_at IS NULL`, mid).Scan(&expires); err != nil {
		t.Fatal(err)
	}

	var check apptest.Resp
	_, _ = storetest.Interleave(t, e.App.DB,
		func(q store.Querier) error { return e.App.Orgs.HoldMemberToSpend(ctx, q, mid) },
		func() error {
			check = e.CheckCode(orgID, "robert@acme.test", codes[0])
			return nil
		},
		func(store.Querier) error {
			e.Clock.Advance(store.Time(expires).Sub(e.Clock.Now()))
			return nil
		})
	apptest.Want(t, check, 404, "otp_code_not_found")
	if m := e.MemberByID(orgID, mid); m["email_address"] != "bob@acme.test" {
		t.Fatalf("an expired code changed the address: %v", m["email_address"])
	}
	if n := e.Count(`SELECT COUNT(*) FROM email_update_otps WHERE member_id = $1 AND used_at IS NOT NULL
		AND failed_attempts = 0`, mid); n != 0 {
		t.Fatal("the expired code was spent")
	}
}
