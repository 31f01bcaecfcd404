package emailotp_test

import (
	"net/http"
	"testing"
	"time"

	"github.com/latchkey/latchkey/internal/app"
	"github.com/latchkey/latchkey/internal/apptest"
)

// The reviewer's forgery by code: an organization admin sends a login
// code to an inbox they own, points that member at the victim's address
// (no proof needed), and redeems the code naming the victim's address. The
// code must neither verify that address nor log in with an email factor
// for it, which sessions/exchange would carry into the victim's
// organization.
func TestCodeSentBeforeAdminAddressChangeProvesNothing(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		victimOrg := e.CreateOrg("victimco", "NOT_ALLOWED", nil)
		e.CreateMember(victimOrg, "ceo@victim.test")
		evil, admin, mule := e.AdminWithMule()

		apptest.Want(t, e.SendCode(evil, "mule@evil.test"), 200, "")
		_, codes := e.LastMail("mule@evil.test")
		apptest.Want(t, e.SDK(http.MethodPut, "/b2b/organizations/members/"+mule, map[string]any{"email_address": "ceo@victim.test"}, admin), 200, "")

		apptest.Want(t, e.CheckCode(evil, "ceo@victim.test", codes[0]), 404, "otp_code_not_found")
		apptest.Want(t, e.CheckCode(evil, "mule@evil.test", codes[0]), 404, "otp_code_not_found")
		if m := e.MemberByID(evil, mule); m["email_address"] != "ceo@victim.test" || m["email_address_verified"] != false {
			t.Fatalf("the refused code changed the member: %v", m)
		}
	})
}

// Item one on its own: a code is checked only while the member's address
// is the one it was sent to, and otherwise answers as an expired code
// (otp_code_not_found) without costing one of its attempts. The address
// coming back makes it good again, since its inbox did receive it.
func TestCodeChecksOnlyForTheAddressItWasSentTo(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		org := e.CreateOrg("acme", "NOT_ALLOWED", nil)
		ada := e.CreateMember(org, "ada@acme.test")
		apptest.Want(t, e.SendCode(org, "ada@acme.test"), 200, "")
		_, codes := e.LastMail("ada@acme.test")

		e.ForceAddress(ada, "ceo@victim.test")
		apptest.Want(t, e.CheckCode(org, "ceo@victim.test", codes[0]), 404, "otp_code_not_found")
		if m := e.MemberByID(org, ada); m["email_address_verified"] != false {
			t.Fatalf("the refused code verified the address: %v", m)
		}
		if n := e.Count(`SELECT COUNT(*) FROM email_otps WHERE failed_attempts > 0`); n != 0 {
			t.Fatalf("the refusal counted an attempt on %d codes", n)
		}
		e.ForceAddress(ada, "ada@acme.test")
		if r := e.CheckCode(org, "ada@acme.test", codes[0]); r.Status != 200 {
			t.Fatalf("code back at its address: %s", r.Raw)
		}
	})
}

// Codes stored before the address was recorded (migration 0094) are filled
// in by 0095 where the member has not changed since the code was written,
// and refused where it has. The test writes rows of the old shape and
// replays 0095.
func TestCodesFromBeforeTheAddressWasRecorded(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		org := e.CreateOrg("acme", "NOT_ALLOWED", nil)
		e.CreateMember(org, "ada@acme.test")
		bob := e.CreateMember(org, "bob@acme.test")
		e.Clock.Advance(time.Second)
		codes := map[string]string{}
		for _, who := range []string{"ada@acme.test", "bob@acme.test"} {
			apptest.Want(t, e.SendCode(org, who), 200, "")
			_, c := e.LastMail(who)
			codes[who] = c[0]
		}
		e.Clock.Advance(time.Second)
		apptest.Want(t, e.Backend(http.MethodPut, "/v1/b2b/organizations/"+org+"/members/"+bob, map[string]any{"name": "Bob"}), 200, "")

		ctx := t.Context()
		for _, stmt := range []string{`UPDATE email_otps SET email_address = ''`, `DELETE FROM schema_migrations WHERE version = '0095'`} {
			if _, err := e.App.DB.ExecContext(ctx, stmt); err != nil {
				t.Fatal(err)
			}
		}
		if err := e.App.DB.Migrate(ctx, app.Migrations()...); err != nil {
			t.Fatal(err)
		}
		if r := e.CheckCode(org, "ada@acme.test", codes["ada@acme.test"]); r.Status != 200 {
			t.Fatalf("code of an unchanged member: %s", r.Raw)
		}
		apptest.Want(t, e.CheckCode(org, "bob@acme.test", codes["bob@acme.test"]), 404, "otp_code_not_found")
	})
}

// An address that only Unicode lower-casing turns into a member's (the
// Kelvin sign U+212A lower-cases to k) is not that member's: the send is
// refused as invalid_email, and kate's inbox gets nothing.
func TestNonASCIILookalikeAddressIsRefused(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		org := e.CreateOrg("acme", "ALL_ALLOWED", nil)
		e.CreateMember(org, "kate@acme.test")
		apptest.Want(t, e.SendCode(org, "\u212Aate@acme.test"), 400, "invalid_email")
		if n := e.Count(`SELECT COUNT(*) FROM email_otps`); n != 0 {
			t.Fatalf("%d codes issued for the look-alike address", n)
		}
	})
}
