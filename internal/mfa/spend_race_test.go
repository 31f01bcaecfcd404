package mfa_test

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/latchkey/latchkey/internal/apptest"
	"github.com/latchkey/latchkey/internal/ids"
	"github.com/latchkey/latchkey/internal/store"
	"github.com/latchkey/latchkey/internal/store/storetest"
)

// Two logins in progress may present the same recovery code at once. On
// PostgreSQL the second may read the code unused while the first's spend
// is not committed yet; it must still fail once that spend commits (the
// member's row is locked for the spend, and the code is marked used only
// where it is still unused), or one code would complete two logins.
func TestRecoveryCodeSpentByAConcurrentLoginFails(t *testing.T) {
	t.Parallel()
	e := apptest.New(t, apptest.Postgres(t), nil)
	ctx := t.Context()
	org, mid, _, codes := e.TOTPMember()
	code := codes[0].(string)
	e.Clock.Advance(30 * time.Second)
	ist, _ := e.MFALogin(org, "ada@secure.test")
	// What the first login's transaction does before it commits (the
	// member locked by raceSpend): mark the code used.
	spend := func(q store.Querier) error {
		rows, err := q.QueryContext(ctx, `SELECT recovery_code_id, code_salt, code_hash FROM recovery_codes
			WHERE member_id = $1 AND used_at IS NULL`, mid)
		if err != nil {
			return err
		}
		var match string
		for rows.Next() {
			var id, salt, hash string
			if err := rows.Scan(&id, &salt, &hash); err != nil {
				rows.Close()
				return err
			}
			if ids.HashCode(salt, strings.ToLower(strings.ReplaceAll(code, "-", ""))) == hash {
				match = id
			}
		}
		rows.Close()
		if match == "" {
			return errors.New("the recovery code is not among the member's unused ones")
		}
		_, err = q.ExecContext(ctx, `UPDATE recovery_codes SET used_at = $1 WHERE recovery_code_id = $2`,
			store.Millis(e.Clock.Now()), match)
		return err
	}
	second := raceSpend(t, e, mid, spend, "/v1/b2b/recovery_codes/recover", map[string]any{"organization_id": org,
		"member_id": mid, "intermediate_session_token": ist, "recovery_code": code})
	apptest.Want(t, second, 401, "unable_to_authenticate_recovery_code")
	if n := e.Count(`SELECT COUNT(*) FROM recovery_codes WHERE member_id = $1 AND used_at IS NULL`, mid); n != len(codes)-1 {
		t.Fatalf("%d unused codes, want %d", n, len(codes)-1)
	}
}

// The same for an authenticator code: a login that presents the code
// another login is accepting must fail once that one commits (the
// registration's last used time step moves only forward).
func TestTOTPCodeTakenByAConcurrentLoginFails(t *testing.T) {
	t.Parallel()
	e := apptest.New(t, apptest.Postgres(t), nil)
	ctx := t.Context()
	e.AlignClock()
	org, mid, secret, _ := e.TOTPMember()
	e.Clock.Advance(30 * time.Second) // the enrollment's login used the current step
	ist, _ := e.MFALogin(org, "ada@secure.test")
	now := e.Clock.Now()
	spend := func(q store.Querier) error {
		_, err := q.ExecContext(ctx, `UPDATE totp_registrations SET last_used_step = $1 WHERE member_id = $2`,
			now.Unix()/30, mid)
		return err
	}
	second := raceSpend(t, e, mid, spend, "/v1/b2b/totp/authenticate", map[string]any{"organization_id": org,
		"member_id": mid, "intermediate_session_token": ist, "code": apptest.TOTPAt(t, secret, now)})
	apptest.Want(t, second, 404, "otp_code_not_found")
}

// raceSpend runs spend in a transaction that has locked the member, as a
// login's second factor does, and holds it open while a backend request
// (path, body) runs; it returns that request's answer, which must not be
// a success.
func raceSpend(t *testing.T, e *apptest.Env, mid string, spend func(q store.Querier) error, path string, body map[string]any) apptest.Resp {
	t.Helper()
	var second apptest.Resp
	spendErr, loginErr := storetest.Overlap(t, e.App.DB, func(q store.Querier) error {
		if _, err := e.App.Orgs.MemberForUpdate(t.Context(), q, e.Project.Project.ID, mid); err != nil {
			return err
		}
		return spend(q)
	}, func() error {
		second = e.Backend(http.MethodPost, path, body)
		if second.Status == 200 {
			return fmt.Errorf("what the other login spent completed this one too: %s", second.Raw)
		}
		return nil
	})
	if spendErr != nil || loginErr != nil {
		t.Fatalf("spend: %v; login: %v", spendErr, loginErr)
	}
	return second
}
