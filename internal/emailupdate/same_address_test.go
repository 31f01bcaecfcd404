package emailupdate_test

import (
	"strings"
	"testing"
	"time"

	"github.com/latchkey/latchkey/internal/apptest"
	"github.com/latchkey/latchkey/internal/emailotp"
	"github.com/latchkey/latchkey/internal/emailupdate"
)

// shared is the new address both of bothStart's members ask for.
const shared = "shared@acme.test"

// bothStart leaves bob and ada each with an update to shared in flight,
// bob's started a second before ada's, with the extra fields of body. It
// returns the links and codes each was sent, bob's first.
//
// Start refuses the second of two updates to one address
// (TestEmailUpdateToAnAddressAnotherMemberIsUpdatingTo), but two starts
// racing on PostgreSQL can both pass that check, and redemption must keep
// their updates apart. So bob's secrets are set aside (marked used) while
// ada starts, then made live again: the state such a race leaves.
func bothStart(e *apptest.Env, f *apptest.MeFixture, body map[string]any) (bob, ada []string) {
	e.T.Helper()
	body["email_address"] = shared
	var sent [2][]string
	// aside moves bob's secrets from one used_at to the other (1 is a
	// time no real spend has).
	aside := func(set, where string) {
		for _, table := range []string{"magic_links", "email_update_otps"} {
			if _, err := e.App.DB.ExecContext(e.T.Context(), `UPDATE `+table+` SET used_at = `+set+
				` WHERE member_id = $1 AND used_at `+where, f.PlainID); err != nil {
				e.T.Fatal(err)
			}
		}
	}
	for i, session := range []string{f.Plain, f.Admin} {
		if i == 1 {
			aside("1", "IS NULL")
		}
		if r := e.StartEmailUpdate(session, "", body); r.Status != 200 {
			e.T.Fatalf("start %d: %s", i, r.Raw)
		}
		links, codes := e.LastMail(shared)
		sent[i] = append(links, codes...)
		e.Clock.Advance(time.Second)
	}
	aside("NULL", "= 1")
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
// older (bob's) as the newer (ada's): another member's start neither
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

// Links are as separate: ada's start cancels nothing of bob's, bob's
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

// Only one member at a time may update to an address: while bob's update
// to shared is in flight (a link or a code), ada's start to it is refused
// as a taken address, whichever way either is delivered; bob may start
// his again; once his has expired, ada may start hers. (Five starts to
// the address: emailupdate.SendPerEmail's allowance.)
func TestEmailUpdateToAnAddressAnotherMemberIsUpdatingTo(t *testing.T) {
	for _, c := range []struct{ bob, ada string }{{"EMAIL_MAGIC_LINK", "EMAIL_OTP"}, {"EMAIL_OTP", "EMAIL_MAGIC_LINK"}} {
		t.Run(c.bob, func(t *testing.T) {
			apptest.Each(t, func(t *testing.T, e *apptest.Env) {
				f := e.NewMeFixture()
				start := func(session, method string) apptest.Resp {
					return e.StartEmailUpdate(session, "", map[string]any{"email_address": shared, "delivery_method": method})
				}
				apptest.Want(t, start(f.Plain, c.bob), 200, "")
				for _, method := range []string{c.ada, c.bob} {
					r := start(f.Admin, method)
					apptest.Want(t, r, 400, "duplicate_member_email")
					if msg, _ := r.Body["error_message"].(string); !strings.Contains(msg, "updating their email address to this one") {
						t.Fatalf("error_message %q", msg)
					}
				}
				apptest.Want(t, start(f.Plain, c.bob), 200, "")
				if n := e.Count(`SELECT COUNT(*) FROM magic_links WHERE member_id = $1 AND purpose = 'email_update'`, f.AdminID) +
					e.Count(`SELECT COUNT(*) FROM email_update_otps WHERE member_id = $1`, f.AdminID); n != 0 {
					t.Fatalf("%d email-update secrets issued to ada", n)
				}
				e.Clock.Advance(emailupdate.Lifetime)
				apptest.Want(t, start(f.Admin, c.ada), 200, "")
			})
		})
	}
}

// An update's link and code work for five minutes (emailupdate.Lifetime),
// as the API family documents, not a login link's hour or a login code's
// ten minutes; the email says so.
func TestEmailUpdateSecretsLiveFiveMinutes(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		f := e.NewMeFixture()
		apptest.Want(t, e.StartEmailUpdate(f.Plain, "", map[string]any{"email_address": "robert@acme.test"}), 200, "")
		links, _ := e.LastMail("robert@acme.test")
		wantExpiryText(e, "robert@acme.test", "5 minutes")
		apptest.Want(t, e.StartEmailUpdate(f.Admin, "", map[string]any{"email_address": "ada2@acme.test", "delivery_method": "EMAIL_OTP"}), 200, "")
		_, codes := e.LastMail("ada2@acme.test")
		wantExpiryText(e, "ada2@acme.test", "5 minutes")

		e.Clock.Advance(emailupdate.Lifetime)
		apptest.Want(t, e.RedeemLink(apptest.MagicLinkToken(t, links[0]), nil), 401, "unable_to_auth_magic_link")
		apptest.Want(t, e.CheckCode(f.Acme, "ada2@acme.test", codes[0]), 404, "otp_code_not_found")
		wantAddress(e, f.Acme, f.PlainID, "bob@acme.test")
		wantAddress(e, f.Acme, f.AdminID, "ada@acme.test")

		// Within the five minutes they work.
		apptest.Want(t, e.StartEmailUpdate(f.Plain, "", map[string]any{"email_address": "robert@acme.test"}), 200, "")
		links, _ = e.LastMail("robert@acme.test")
		e.Clock.Advance(emailupdate.Lifetime - time.Second)
		wantSessionOf(e, e.RedeemLink(apptest.MagicLinkToken(t, links[0]), nil), f.PlainID)
	})
}

// wantExpiryText fails unless the newest mail to to says its secret
// expires in want.
func wantExpiryText(e *apptest.Env, to, want string) {
	e.T.Helper()
	msgs, err := e.App.Outbox.List(e.T.Context(), to, 1)
	if err != nil || len(msgs) == 0 {
		e.T.Fatalf("no mail to %s: %v", to, err)
	}
	if !strings.Contains(msgs[0].Text, want) {
		e.T.Fatalf("mail to %s does not say %q:\n%s", to, want, msgs[0].Text)
	}
}
