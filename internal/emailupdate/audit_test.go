package emailupdate_test

import (
	"slices"
	"testing"

	"github.com/latchkey/latchkey/internal/apptest"
	"github.com/latchkey/latchkey/internal/audit"
	"github.com/latchkey/latchkey/internal/organization"
)

// wantUpdateEvents fails unless the audit log holds exactly the completed
// email updates want, each as member:old>new, in any order.
func wantUpdateEvents(e *apptest.Env, org string, want ...string) {
	e.T.Helper()
	events, err := e.App.Audit.List(e.T.Context(), audit.Filter{ProjectID: e.Project.Project.ID, Type: audit.FactorChange})
	if err != nil {
		e.T.Fatal(err)
	}
	var got []string
	for _, ev := range events {
		if ev.Method != organization.EmailUpdated {
			continue
		}
		if ev.OrganizationID != org || ev.Outcome != audit.Success || ev.RequestID == "" {
			e.T.Fatalf("event: %+v", ev)
		}
		got = append(got, ev.MemberID+":"+str(ev.Details["old_email_address"])+">"+str(ev.Details["new_email_address"]))
	}
	slices.Sort(got)
	want = slices.Sorted(slices.Values(want))
	if !slices.Equal(got, want) {
		e.T.Fatalf("email_updated events = %q, want %q", got, want)
	}
}

func str(v any) string { s, _ := v.(string); return s }

// The moment an address actually changes is in the audit log: one
// factor_change event email_updated per completed update, by link and by
// code, naming the member, the organization and the old and new address.
// A refused redemption records none: a wrong code, and a link redeemed
// with another member's session held, which is refused only after the
// address was changed in the login's transaction (the event rolls back
// with the change).
func TestEmailUpdateCompletionIsAudited(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		f := e.NewMeFixture()
		if r := e.StartEmailUpdate(f.Plain, "", map[string]any{"email_address": "robert@acme.test",
			"login_redirect_url": apptest.Page}); r.Status != 200 {
			t.Fatalf("start by link: %s", r.Raw)
		}
		links, _ := e.LastMail("robert@acme.test")
		token := apptest.MagicLinkToken(t, links[0])
		if r := e.RedeemLink(token, map[string]any{"session_token": f.Admin}); r.Status == 200 {
			t.Fatalf("link redeemed with another member's session: %s", r.Raw)
		}
		wantAddress(e, f.Acme, f.PlainID, "bob@acme.test")
		wantUpdateEvents(e, f.Acme)
		wantSessionOf(e, e.RedeemLink(token, nil), f.PlainID)
		wantUpdateEvents(e, f.Acme, f.PlainID+":bob@acme.test>robert@acme.test")

		if r := e.StartEmailUpdate(f.Admin, "", map[string]any{"email_address": "ada2@acme.test",
			"delivery_method": "EMAIL_OTP"}); r.Status != 200 {
			t.Fatalf("start by code: %s", r.Raw)
		}
		_, codes := e.LastMail("ada2@acme.test")
		apptest.Want(t, e.CheckCode(f.Acme, "ada2@acme.test", apptest.WrongCode(codes[0])), 404, "otp_code_not_found")
		wantUpdateEvents(e, f.Acme, f.PlainID+":bob@acme.test>robert@acme.test")
		wantSessionOf(e, e.CheckCode(f.Acme, "ada2@acme.test", codes[0]), f.AdminID)
		wantUpdateEvents(e, f.Acme, f.AdminID+":ada@acme.test>ada2@acme.test", f.PlainID+":bob@acme.test>robert@acme.test")
	})
}
