package mfa_test

import (
	"net/http"
	"testing"

	"github.com/latchkey/latchkey/internal/apptest"
)

// A TOTP create drops the member's pending registration and inserts its
// own. On PostgreSQL concurrent creates each found nothing to drop and
// all inserted, leaving several pending secrets (each with recovery
// codes) for one member. The create now locks the member first: they run
// one after another and one pending registration is left, one of those
// answered.
func TestConcurrentTOTPCreatesLeaveOnePendingRegistration(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		org, mid := e.MFAMember()
		const n = 8
		answered := map[string]bool{}
		for _, r := range apptest.Together(n, func(int) apptest.Resp {
			return e.Backend(http.MethodPost, "/v1/b2b/totp", map[string]any{"organization_id": org, "member_id": mid})
		}) {
			if id, _ := r.Body["totp_registration_id"].(string); r.Status == 200 && id != "" {
				answered[id] = true
			}
		}
		if len(answered) != n {
			t.Fatalf("%d of %d creates answered a registration", len(answered), n)
		}
		var left string
		if err := e.App.DB.Read().QueryRowContext(t.Context(), `SELECT totp_registration_id FROM totp_registrations
			WHERE member_id = $1`, mid).Scan(&left); err != nil {
			t.Fatal(err)
		}
		if n := e.Count(`SELECT COUNT(*) FROM totp_registrations WHERE member_id = $1`, mid); n != 1 || !answered[left] {
			t.Fatalf("%d registrations left (%s), want one of those answered", n, left)
		}
		if n := e.Count(`SELECT COUNT(DISTINCT totp_registration_id) FROM recovery_codes WHERE member_id = $1`, mid); n != 1 {
			t.Fatalf("recovery codes of %d registrations left, want one", n)
		}
	})
}
