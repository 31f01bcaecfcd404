package magiclink_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"testing"

	"github.com/latchkey/latchkey/internal/apierr"
	"github.com/latchkey/latchkey/internal/apptest"
	"github.com/latchkey/latchkey/internal/magiclink"
	"github.com/latchkey/latchkey/internal/notify"
	"github.com/latchkey/latchkey/internal/store"
)

// failing sends into the dev outbox until fail is set, then fails as a
// mail server that is down would. It only sends (no SendIn), as SMTP.
type failing struct {
	ob   *notify.Outbox
	fail *bool
}

var errMailDown = errors.New("smtp: 421 service not available")

func (f failing) Send(ctx context.Context, m notify.Email) error {
	if *f.fail {
		return errMailDown
	}
	return f.ob.Send(ctx, m)
}

// failingTx is failing as a mailer that writes to the database only
// (the durable queue): it sends in the caller's transaction.
type failingTx struct{ failing }

func (f failingTx) SendIn(ctx context.Context, q store.Querier, m notify.Email) error {
	if *f.fail {
		return errMailDown
	}
	return f.ob.SendIn(ctx, q, m)
}

// A re-invite whose email is not sent leaves the invitee the link they
// already hold, whether the mailer queues in the invite's transaction or
// sends after it: the spend of the earlier links goes with the send. A
// re-invite that is sent spends them.
func TestReinviteWhoseEmailFailsKeepsTheEarlierLink(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		for i, c := range []struct {
			name   string
			mailer func(failing) notify.Mailer
		}{
			{"queued in the transaction", func(f failing) notify.Mailer { return failingTx{f} }},
			{"sent after the commit", func(f failing) notify.Mailer { return f }},
		} {
			t.Run(c.name, func(t *testing.T) {
				var fail bool
				m := c.mailer(failing{ob: e.App.Outbox, fail: &fail})
				if _, inTx := notify.AsTx(m); inTx != (c.name == "queued in the transaction") {
					t.Fatalf("AsTx = %v", inTx)
				}
				svc := magiclink.New(magiclink.Deps{DB: e.App.DB, Clock: e.Clock, Projects: e.App.Projects, Orgs: e.App.Orgs,
					Sessions: e.App.Sessions, Mailer: m, Limiter: e.App.Limiter})
				org := e.CreateOrg(fmt.Sprintf("acme%d", i), "NOT_ALLOWED", nil)
				reinvite := func() error {
					_, _, err := svc.Invite(context.Background(), magiclink.InviteParams{Project: e.Project.Project,
						OrganizationID: org, Email: "nia@acme.test"})
					return err
				}
				first, id := inviteLink(t, e, org, "nia@acme.test", nil)
				live := func() int {
					return e.Count(`SELECT COUNT(*) FROM magic_links WHERE member_id = $1 AND purpose = 'invite' AND used_at IS NULL`, id)
				}

				fail = true
				if err := reinvite(); !apierr.Is(notify.DeliveryError(err), apierr.EmailDeliveryFailed) || !errors.Is(err, errMailDown) {
					t.Fatalf("re-invite through a mailer that is down: %v", err)
				}
				if n := live(); n != 1 {
					t.Fatalf("%d live invite links after the failed re-invite, want the first", n)
				}

				fail = false
				if err := reinvite(); err != nil {
					t.Fatalf("re-invite: %v", err)
				}
				_, _, links := lastMessage(e, "nia@acme.test")
				second := apptest.MagicLinkToken(t, links[0])
				if second == first {
					t.Fatal("the re-invite mailed the first link")
				}
				if n := live(); n != 1 {
					t.Fatalf("%d live invite links after the re-invite, want the new one", n)
				}
				apptest.Want(t, e.RedeemLink(first, nil), 401, "unable_to_auth_magic_link")
				apptest.Want(t, e.RedeemLink(second, nil), 200, "")
			})
		}
	})
}

// The per-recipient cap of the SDK face refuses an admin's re-invite
// after a stranger's sends have used up the address's hour; the invitee's
// first link still works.
func TestReinviteRefusedByTheRecipientCapKeepsTheEarlierLink(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		org := e.CreateOrg("acme", "NOT_ALLOWED", nil)
		e.CreateAdmin(org, "boss@acme.test")
		admin := e.SessionFor(org, "boss@acme.test")
		first, _ := inviteLink(t, e, org, "nia@acme.test", nil)

		for sent := 0; sent < notify.SendPerRecipient.Limit; {
			open := e.CreateOrg(fmt.Sprintf("open%d", sent), "ALL_ALLOWED", nil)
			for j := 0; j < magiclink.SendPerEmail.Limit && sent < notify.SendPerRecipient.Limit; j, sent = j+1, sent+1 {
				if r := e.SendCode(open, "nia@acme.test"); r.Status != 200 {
					t.Fatalf("send %d: %s", sent, r.Raw)
				}
			}
		}
		apptest.Want(t, e.SDK(http.MethodPost, "/b2b/magic_links/email/invite", map[string]any{"email_address": "nia@acme.test"}, admin),
			429, "too_many_requests")
		apptest.Want(t, e.RedeemLink(first, nil), 200, "")
	})
}
