package emailupdate_test

import (
	"testing"
	"time"

	"github.com/latchkey/latchkey/internal/apptest"
	"github.com/latchkey/latchkey/internal/emailotp"
)

// shared is the new address both of bothStart's members ask for.
const shared = "shared@acme.test"

// bothStart has bob, then (a second later) ada, start an update to shared
// with the extra fields of body: nobody holds the address, so both are
// admitted. It returns the links and codes each was sent, bob's first.
func bothStart(e *apptest.Env, f *apptest.MeFixture, body map[string]any) (bob, ada []string) {
	e.T.Helper()
	body["email_address"] = shared
	var sent [2][]string
	for i, session := range []string{f.Plain, f.Admin} {
		if r := e.StartEmailUpdate(session, "", body); r.Status != 200 {
			e.T.Fatalf("start %d: %s", i, r.Raw)
		}
		links, codes := e.LastMail(shared)
		sent[i] = append(links, codes...)
		e.Clock.Advance(time.Second)
	}
	if sent[0][0] == sent[1][0] {
		e.T.Skip("both members were sent the same code (one chance in a million)")
	}
	return sent[0], sent[1]
}

// wantSessionOf fails unless r logged in member id.
func wantSessionOf(e *apptest.Env, r apptest.Resp, id string) {
	e.T.Helper()
	if r.Status != 200 || apptest.MemberOf(r.Data())["member_id"] != id {
		e.T.Fatalf("want a session of %s: %d %s", id, r.Status, r.Raw)
	}
}

// wantAddress fails unless member id of org has the address want.
func wantAddress(e *apptest.Env, org, id, want string) {
	e.T.Helper()
	if got := e.MemberByID(org, id)["email_address"]; got != want {
		e.T.Fatalf("member %s has the address %v, want %s", id, got, want)
	}
}

// Each email-update code proves only the update it was sent for, the
// older (bob's) as the newer (ada's): another member's later start neither
// voids bob's code nor lets either code change (and log in as) the other
// member; once one has the address, the other's code changes nothing.
func TestEmailUpdateCodeProvesOnlyItsOwnUpdate(t *testing.T) {
	for _, typed := range []string{"older", "newer"} {
		t.Run(typed, func(t *testing.T) {
			apptest.Each(t, func(t *testing.T, e *apptest.Env) {
				f := e.NewMeFixture()
				bob, ada := bothStart(e, f, map[string]any{"delivery_method": "EMAIL_OTP"})
				type side struct{ id, was, code string }
				mine, other := side{f.PlainID, "bob@acme.test", bob[0]}, side{f.AdminID, "ada@acme.test", ada[0]}
				if typed == "newer" {
					mine, other = other, mine
				}
				wantSessionOf(e, e.CheckCode(f.Acme, shared, mine.code), mine.id)
				wantAddress(e, f.Acme, mine.id, shared)
				apptest.Want(t, e.CheckCode(f.Acme, shared, other.code), 404, "otp_code_not_found")
				wantAddress(e, f.Acme, other.id, other.was)
			})
		})
	}
}

// Links are as separate: ada's later start cancels nothing of bob's, bob's
// link changes bob, and ada's then changes nothing (the address is bob's).
func TestEmailUpdateLinkProvesOnlyItsOwnUpdate(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		f := e.NewMeFixture()
		bob, ada := bothStart(e, f, map[string]any{})

		wantSessionOf(e, e.RedeemLink(apptest.MagicLinkToken(t, bob[0]), nil), f.PlainID)
		wantAddress(e, f.Acme, f.PlainID, shared)
		if r := e.RedeemLink(apptest.MagicLinkToken(t, ada[0]), nil); r.Status == 200 {
			t.Fatalf("ada's link after bob took the address: %s", r.Raw)
		}
		wantAddress(e, f.Acme, f.AdminID, "ada@acme.test")
	})
}

// A wrong code is a guess at every update to the address, counted on each
// code: two updates in flight give no more guesses than one, and after
// emailotp.MaxAttempts misses neither code works.
func TestEmailUpdateCodeMissCountsOnEveryPendingUpdate(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		f := e.NewMeFixture()
		bob, ada := bothStart(e, f, map[string]any{"delivery_method": "EMAIL_OTP"})
		wrong := apptest.WrongCode(bob[0])
		if wrong == ada[0] {
			wrong = "222222" // WrongCode gives 000000 or 111111, and ada's is one of them
		}
		for range emailotp.MaxAttempts {
			apptest.Want(t, e.CheckCode(f.Acme, shared, wrong), 404, "otp_code_not_found")
		}
		for _, code := range []string{bob[0], ada[0]} {
			apptest.Want(t, e.CheckCode(f.Acme, shared, code), 404, "otp_code_not_found")
		}
	})
}

// Two members sent the same code for one address: nothing tells whose
// change the caller proves, so neither is made and both codes are spent.
// (Codes are random; the test gives ada's update bob's code.)
func TestEmailUpdateSameCodeForTwoUpdatesChangesNobody(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		f := e.NewMeFixture()
		bob, _ := bothStart(e, f, map[string]any{"delivery_method": "EMAIL_OTP"})
		if _, err := e.App.DB.ExecContext(t.Context(), `UPDATE email_update_otps SET
			code_salt = (SELECT code_salt FROM email_update_otps WHERE member_id = $1),
			code_hash = (SELECT code_hash FROM email_update_otps WHERE member_id = $1) WHERE member_id = $2`,
			f.PlainID, f.AdminID); err != nil {
			t.Fatal(err)
		}
		apptest.Want(t, e.CheckCode(f.Acme, shared, bob[0]), 404, "otp_code_not_found")
		wantAddress(e, f.Acme, f.PlainID, "bob@acme.test")
		wantAddress(e, f.Acme, f.AdminID, "ada@acme.test")
		if n := e.Count(`SELECT COUNT(*) FROM email_update_otps WHERE used_at IS NULL`); n != 0 {
			t.Fatalf("%d email-update codes still live after the shared code was typed", n)
		}
	})
}
