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

// On the SDK face a send to a deleted member's address must answer as a
// send to a stranger does. Where the organization's email JIT policy
// admits no stranger, that is the policy's refusal, and no notice goes
// out: answering success (and mailing the notice) would tell any holder
// of the public token which addresses used to be members.
func TestSendLoginToAFormerMemberWhereStrangersAreRefused(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		cases := []struct {
			slug, jit string
			fields    map[string]any
			want      apierr.Type
		}{
			{"closed", "NOT_ALLOWED", nil, apierr.EmailJITProvisioningNotAllowed},
			{"narrow", "RESTRICTED", map[string]any{"email_allowed_domains": []string{"elsewhere.test"}},
				apierr.InvalidEmailForJITProvisioning},
		}
		proj := e.Project.Project
		limits := organization.LoginSendLimits{Limiter: e.App.Limiter,
			PerAddress:   ratelimit.Rule{Name: "t_send_ip", Limit: 50, Window: time.Hour, PerClientAddress: true},
			PerRecipient: ratelimit.Rule{Name: "t_send_email", Limit: 5, Window: time.Hour}}
		sdk := project.WithCaller(t.Context(), project.Caller{Project: proj})
		for _, c := range cases {
			org := e.CreateOrg(c.slug, c.jit, c.fields)
			gone := "gone@" + c.slug + ".test"
			e.DeleteMember(org, e.CreateVerifiedMember(org, gone))
			send := func(email string) error {
				_, err := e.App.Orgs.SendLogin(sdk, e.App.Outbox, limits, proj, org, email, "203.0.113.7", "",
					func(context.Context) error { return nil },
					func(store.Querier, *organization.LoginSend) (notify.Email, error) {
						t.Fatalf("%s: asked to build a login email for %s", c.slug, email)
						return notify.Email{}, nil
					},
					func(context.Context, *organization.LoginSend) {})
				return err
			}
			if err := send("stranger@" + c.slug + ".test"); !apierr.Is(err, c.want) {
				t.Fatalf("%s: stranger: %v, want %s", c.slug, err, c.want)
			}
			if err := send(gone); !apierr.Is(err, c.want) {
				t.Fatalf("%s: former member: %v, want %s as for a stranger", c.slug, err, c.want)
			}
			if msgs, err := e.App.Outbox.List(t.Context(), gone, 0); err != nil || len(msgs) != 0 {
				t.Fatalf("%s: former member was mailed: %+v, %v", c.slug, msgs, err)
			}
		}
	})
}
