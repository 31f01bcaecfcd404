package mfa_test

import (
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/latchkey/latchkey/internal/apptest"
	"github.com/latchkey/latchkey/internal/store"
	"github.com/latchkey/latchkey/internal/store/storetest"
)

// On PostgreSQL a factor's removal (here the member's phone number) may be
// in flight while the member logs in with their authenticator app, which
// writes the member's MFA fields back (organization.SaveMFA) from its read
// of the member: read before the removal committed, it would enroll the
// removed number again. The login reads the member locked, after the
// removal: the number stays removed.
func TestMFALoginDuringFactorRemovalKeepsItRemoved(t *testing.T) {
	t.Parallel()
	e := apptest.New(t, apptest.Postgres(t), nil)
	ctx := t.Context()
	e.AlignClock()
	org, mid, secret, _ := e.TOTPMember()
	setPhone := func(q store.Querier, phone string) error {
		m, err := e.App.Orgs.Member(ctx, q, e.Project.Project.ID, mid)
		if err != nil {
			return err
		}
		m.MFAPhoneNumber, m.MFAPhoneNumberVerified = phone, phone != ""
		return e.App.Orgs.SaveMFA(ctx, q, m)
	}
	if err := e.App.DB.Tx(ctx, func(q store.Querier) error { return setPhone(q, "+15005550006") }); err != nil {
		t.Fatal(err)
	}
	e.Clock.Advance(30 * time.Second) // the enrollment's login used the current code
	ist, _ := e.MFALogin(org, "ada@secure.test")
	removeErr, loginErr := storetest.Overlap(t, e.App.DB, func(q store.Querier) error { return setPhone(q, "") }, func() error {
		r := e.Backend(http.MethodPost, "/v1/b2b/totp/authenticate", map[string]any{"organization_id": org, "member_id": mid,
			"intermediate_session_token": ist, "code": apptest.TOTPAt(t, secret, e.Clock.Now())})
		if r.Status != 200 {
			return fmt.Errorf("totp login: %d %s", r.Status, r.Raw)
		}
		return nil
	})
	if removeErr != nil || loginErr != nil {
		t.Fatalf("removal: %v; login: %v", removeErr, loginErr)
	}
	if n := e.Count(`SELECT COUNT(*) FROM members WHERE member_id = $1 AND mfa_phone_number <> ''`, mid); n != 0 {
		t.Fatal("the login enrolled the removed phone number again")
	}
}
