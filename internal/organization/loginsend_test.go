package organization_test

import (
	"context"
	"testing"
	"time"

	"github.com/latchkey/latchkey/internal/apierr"
	"github.com/latchkey/latchkey/internal/apptest"
	"github.com/latchkey/latchkey/internal/notify"
	"github.com/latchkey/latchkey/internal/organization"
	"github.com/latchkey/latchkey/internal/project"
	"github.com/latchkey/latchkey/internal/ratelimit"
	"github.com/latchkey/latchkey/internal/store"
)

// SendLogin, for an address that is a deleted member of an organization
// that admits strangers: on the SDK face (a caller without the secret) it
// sends the project's notice itself and never asks the method to build a
// login email or to undo one (there is no member to give it), and answers
// as for a stranger; on the backend face it is inactive_member. Every
// email login method (codes, links) sends through here.
func TestSendLoginToAFormerMember(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		org := e.CreateOrg("acme", "ALL_ALLOWED", nil)
		e.DeleteMember(org, e.CreateVerifiedMember(org, "gone@acme.test"))
		proj := e.Project.Project
		limits := organization.LoginSendLimits{Limiter: e.App.Limiter,
			PerAddress:   ratelimit.Rule{Name: "t_send_ip", Limit: 50, Window: time.Hour, PerClientAddress: true},
			PerRecipient: ratelimit.Rule{Name: "t_send_email", Limit: 5, Window: time.Hour}}
		send := func(ctx context.Context) (*organization.LoginSend, error) {
			return e.App.Orgs.SendLogin(ctx, e.App.Outbox, limits, proj, org, "gone@acme.test", "203.0.113.7", "",
				func(context.Context) error { return nil },
				func(store.Querier, *organization.LoginSend) (notify.Email, error) {
					t.Fatal("asked to build a login email for a deleted member")
					return notify.Email{}, nil
				},
				func(context.Context, *organization.LoginSend) { t.Fatal("asked to undo a send to a deleted member") })
		}

		sent, err := send(project.WithCaller(t.Context(), project.Caller{Project: proj}))
		if err != nil || sent.Member != nil || sent.MemberCreated || sent.Organization.OrganizationID != org {
			t.Fatalf("SDK face: %+v, %v", sent, err)
		}
		if r := sent.Response(); r.MemberID != "" || r.Member != nil {
			t.Fatalf("SDK face response: %+v", r)
		}
		msgs, err := e.App.Outbox.List(t.Context(), "gone@acme.test", 0)
		if err != nil || len(msgs) != 1 || msgs[0].Subject != "Sign-in request for "+proj.Name {
			t.Fatalf("outbox: %+v, %v", msgs, err)
		}

		_, err = send(project.WithCaller(t.Context(), project.Caller{Project: proj, Backend: true}))
		if !apierr.Is(err, apierr.InactiveMember) {
			t.Fatalf("backend face: %v, want inactive_member", err)
		}
		if msgs, _ := e.App.Outbox.List(t.Context(), "gone@acme.test", 0); len(msgs) != 1 {
			t.Fatalf("backend face mailed %d more", len(msgs)-1)
		}
	})
}
