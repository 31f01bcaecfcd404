package magiclink_test

import (
	"net/http"
	"testing"
	"time"

	"github.com/latchkey/latchkey/internal/app"
	"github.com/latchkey/latchkey/internal/apptest"
)

// The reviewer's forgery: an organization admin sends a login link to an
// inbox they own, points that member at the victim's address (no proof
// needed), and redeems the link. The link must neither verify the new
// address nor log in with an email factor for it, which
// sessions/exchange would carry into the victim's organization.
func TestLinkSentBeforeAdminAddressChangeProvesNothing(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		victimOrg := e.CreateOrg("victimco", "NOT_ALLOWED", nil)
		e.CreateMember(victimOrg, "ceo@victim.test")
		evil, admin, mule := e.AdminWithMule()

		apptest.Want(t, e.SendLink(evil, "mule@evil.test", nil), 200, "")
		links, _ := e.LastMail("mule@evil.test")
		token := apptest.MagicLinkToken(t, links[0])
		apptest.Want(t, e.SDK(http.MethodPut, "/b2b/organizations/members/"+mule, map[string]any{"email_address": "ceo@victim.test"}, admin), 200, "")

		apptest.Want(t, e.RedeemLink(token, nil), 401, "unable_to_auth_magic_link")
		if m := e.MemberByID(evil, mule); m["email_address"] != "ceo@victim.test" || m["email_address_verified"] != false || m["status"] != "active" {
			t.Fatalf("the refused link changed the member: %v", m)
		}
	})
}

// Item one on its own: a login link and an invite link redeem only while
// the member's address is the one they were sent to, and the refusal
// reads as a used link. The refusal spends nothing: the address coming
// back makes the link good again, since its inbox did receive it.
func TestLinkRedeemsOnlyForTheAddressItWasSentTo(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		org := e.CreateOrg("acme", "NOT_ALLOWED", nil)
		ada := e.CreateMember(org, "ada@acme.test")
		apptest.Want(t, e.SendLink(org, "ada@acme.test", nil), 200, "")
		links, _ := e.LastMail("ada@acme.test")
		login := apptest.MagicLinkToken(t, links[0])

		r := invite(e, map[string]any{"organization_id": org, "email_address": "nia@acme.test"})
		apptest.Want(t, r, 200, "")
		nia := r.Body["member_id"].(string)
		_, _, links = lastMessage(e, "nia@acme.test")
		inv := apptest.MagicLinkToken(t, links[0])

		e.ForceAddress(ada, "ceo@victim.test")
		e.ForceAddress(nia, "cfo@victim.test")
		apptest.Want(t, e.RedeemLink(login, nil), 401, "unable_to_auth_magic_link")
		apptest.Want(t, e.RedeemLink(inv, nil), 401, "unable_to_auth_magic_link")
		if m := e.MemberByID(org, nia); m["status"] != "invited" || m["email_address_verified"] != false {
			t.Fatalf("the refused invite changed the member: %v", m)
		}

		e.ForceAddress(ada, "ada@acme.test")
		e.ForceAddress(nia, "nia@acme.test")
		for name, token := range map[string]string{"login": login, "invite": inv} {
			r := e.RedeemLink(token, nil)
			if r.Status != 200 || apptest.MemberOf(r.Data())["email_address_verified"] != true {
				t.Fatalf("%s link back at its address: %s", name, r.Raw)
			}
		}
	})
}

// Links stored before the address was recorded (migration 0094) are filled
// in by 0095 where the member has not changed since the link was written,
// and refused where it has: its address then may not be the one the link
// went to. The test writes rows of the old shape and replays 0095.
func TestLinksFromBeforeTheAddressWasRecorded(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		org := e.CreateOrg("acme", "NOT_ALLOWED", nil)
		e.CreateMember(org, "ada@acme.test")
		bob := e.CreateMember(org, "bob@acme.test")
		e.Clock.Advance(time.Second)
		tokens := map[string]string{}
		for _, who := range []string{"ada@acme.test", "bob@acme.test"} {
			apptest.Want(t, e.SendLink(org, who, nil), 200, "")
			links, _ := e.LastMail(who)
			tokens[who] = apptest.MagicLinkToken(t, links[0])
		}
		// Bob changes after his link was sent (his name here: any write
		// counts, since the row does not say which column moved).
		e.Clock.Advance(time.Second)
		apptest.Want(t, e.Backend(http.MethodPut, "/v1/b2b/organizations/"+org+"/members/"+bob, map[string]any{"name": "Bob"}), 200, "")

		ctx := t.Context()
		for _, stmt := range []string{`UPDATE magic_links SET email_address = ''`, `DELETE FROM schema_migrations WHERE version = '0095'`} {
			if _, err := e.App.DB.ExecContext(ctx, stmt); err != nil {
				t.Fatal(err)
			}
		}
		if err := e.App.DB.Migrate(ctx, app.Migrations()...); err != nil {
			t.Fatal(err)
		}
		if n := e.Count(`SELECT COUNT(*) FROM magic_links WHERE email_address = 'ada@acme.test'`); n != 1 {
			t.Fatalf("ada's link filled %d times", n)
		}
		if r := e.RedeemLink(tokens["ada@acme.test"], nil); r.Status != 200 {
			t.Fatalf("link of an unchanged member: %s", r.Raw)
		}
		apptest.Want(t, e.RedeemLink(tokens["bob@acme.test"], nil), 401, "unable_to_auth_magic_link")
	})
}
