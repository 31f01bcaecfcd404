package app_test

import (
	"fmt"
	"net/http"
	"testing"

	"github.com/latchkey/latchkey/internal/apptest"
	"github.com/latchkey/latchkey/internal/magiclink"
	"github.com/latchkey/latchkey/internal/notify"
)

// Mail bombing across organizations: every organization whose JIT admits
// anyone would send one address its own allowance of login mail
// (magiclink.SendPerEmail per organization). The project-wide cap
// (notify.SendPerRecipient) holds them all together: once the address has
// had its emails for the hour, every flow to it is refused with
// too_many_requests and sends nothing, while other addresses, and the
// same address in another project, are served; the next hour it is
// served again.
func TestEmailsToOneAddressAreCappedAcrossOrganizationsAndFlows(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		const victim = "victim@mail.test"
		sent := 0
		for i := 0; sent < notify.SendPerRecipient.Limit; i++ {
			org := e.CreateOrg(fmt.Sprintf("open%d", i), "ALL_ALLOWED", nil)
			for j := 0; j < magiclink.SendPerEmail.Limit && sent < notify.SendPerRecipient.Limit; j++ {
				send := e.SendCode
				if j%2 == 0 {
					send = func(org, email string) apptest.Resp { return e.SendLink(org, email, nil) }
				}
				r := send(org, victim)
				if r.Status != 200 {
					t.Fatalf("send %d (organization %d): %s", sent, i, r.Raw)
				}
				sent++
			}
		}

		org := e.CreateOrg("another", "ALL_ALLOWED", nil)
		e.CreateMember(org, "mover@mail.test")
		mover := e.SessionFor(org, "mover@mail.test")
		for name, r := range map[string]apptest.Resp{
			"email update":    e.StartEmailUpdate(mover, "", map[string]any{"email_address": victim}),
			"login link":      e.SendLink(org, victim, nil),
			"login code":      e.SendCode(org, victim),
			"discovery link":  e.SDK(http.MethodPost, "/b2b/magic_links/email/discovery/send", map[string]any{"email_address": victim}, ""),
			"discovery code":  e.SDK(http.MethodPost, "/b2b/otps/email/discovery/send", map[string]any{"email_address": victim}, ""),
			"password reset":  e.ResetStart(org, victim, nil),
			"backend invite":  e.Backend(http.MethodPost, "/v1/b2b/magic_links/email/invite", map[string]any{"organization_id": org, "email_address": victim}),
			"backend login":   e.Backend(http.MethodPost, "/v1/b2b/otps/email/login_or_signup", map[string]any{"organization_id": org, "email_address": victim}),
			"another address": e.SendLink(org, "someone@mail.test", nil),
		} {
			if name == "another address" {
				apptest.Want(t, r, 200, "")
				continue
			}
			t.Run(name, func(t *testing.T) { apptest.Want(t, r, 429, "too_many_requests") })
		}
		if n := e.Count(`SELECT COUNT(*) FROM dev_outbox WHERE recipient = $1`, victim); n != notify.SendPerRecipient.Limit {
			t.Fatalf("%d emails to %s, want %d", n, victim, notify.SendPerRecipient.Limit)
		}

		// Another project's cap is its own.
		mine := e.Project
		e.Project = e.NewProject("Other App")
		apptest.Want(t, e.SendLink(e.CreateOrg("elsewhere", "ALL_ALLOWED", nil), victim, nil), 200, "")
		e.Project = mine

		e.Clock.Advance(notify.SendPerRecipient.Window)
		apptest.Want(t, e.SendLink(org, victim, nil), 200, "")
	})
}
