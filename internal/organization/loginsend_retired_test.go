package organization_test

import (
	"context"
	"net/http"
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

// A member's retired address (the one an address change replaced) stays
// reserved for them, so a login send cannot create a member for it. On
// the SDK face that refusal must not be the answer: a stranger at the
// same organization is answered with success, so duplicate_member_email
// ("Another member of this organization used this email address
// before") told any holder of the public token which addresses used to
// be members', as inactive_member did for deleted members. The address
// gets the project's notice instead of a login email, as a deleted
// member's does, and no member is created; the backend face, which holds
// the secret, keeps duplicate_member_email.
func TestSendLoginToARetiredAddress(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		for _, c := range []struct {
			slug, jit string
			fields    map[string]any
		}{
			{"open", "ALL_ALLOWED", nil},
			{"narrow", "RESTRICTED", map[string]any{"email_allowed_domains": []string{"narrow.test"}}},
		} {
			org := e.CreateOrg(c.slug, c.jit, c.fields)
			old := "old@" + c.slug + ".test"
			id := e.CreateVerifiedMember(org, old)
			apptest.Want(t, e.Backend(http.MethodPut, "/v1/b2b/organizations/"+org+"/members/"+id,
				map[string]any{"email_address": "new@" + c.slug + ".test"}), 200, "")
			proj := e.Project.Project
			limits := organization.LoginSendLimits{Limiter: e.App.Limiter,
				PerAddress:   ratelimit.Rule{Name: "t_send_ip", Limit: 50, Window: time.Hour, PerClientAddress: true},
				PerRecipient: ratelimit.Rule{Name: "t_send_email", Limit: 5, Window: time.Hour}}
			send := func(ctx context.Context) (*organization.LoginSend, error) {
				return e.App.Orgs.SendLogin(ctx, e.App.Outbox, limits, proj, org, old, "203.0.113.7", "",
					func(context.Context) error { return nil },
					func(store.Querier, *organization.LoginSend) (notify.Email, error) {
						t.Fatalf("%s: asked to build a login email for a retired address", c.slug)
						return notify.Email{}, nil
					},
					func(context.Context, *organization.LoginSend) {
						t.Fatalf("%s: asked to undo a send to a retired address", c.slug)
					})
			}

			sent, err := send(project.WithCaller(t.Context(), project.Caller{Project: proj}))
			if err != nil || sent.Member != nil || sent.MemberCreated {
				t.Fatalf("%s: SDK face: %+v, %v; want success as for a stranger", c.slug, sent, err)
			}
			msgs, err := e.App.Outbox.List(t.Context(), old, 0)
			if err != nil || len(msgs) != 1 || msgs[0].Subject != "Sign-in request for "+proj.Name ||
				len(msgs[0].Links) != 0 || len(msgs[0].Codes) != 0 {
				t.Fatalf("%s: outbox of the retired address: %+v, %v; want the notice alone", c.slug, msgs, err)
			}
			if n := e.Count(`SELECT COUNT(*) FROM members WHERE organization_id = $1`, org); n != 1 {
				t.Fatalf("%s: %d members, want the one whose address was retired", c.slug, n)
			}

			_, err = send(project.WithCaller(t.Context(), project.Caller{Project: proj, Backend: true}))
			if !apierr.Is(err, apierr.DuplicateMemberEmail) {
				t.Fatalf("%s: backend face: %v, want duplicate_member_email", c.slug, err)
			}
			if msgs, _ := e.App.Outbox.List(t.Context(), old, 0); len(msgs) != 1 {
				t.Fatalf("%s: backend face mailed %d more", c.slug, len(msgs)-1)
			}
		}
	})
}
