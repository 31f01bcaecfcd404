package magiclink_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/latchkey/latchkey/internal/apptest"
	"github.com/latchkey/latchkey/internal/project"
)

func invite(e *apptest.Env, body map[string]any) apptest.Resp {
	e.T.Helper()
	return e.Backend(http.MethodPost, "/v1/b2b/magic_links/email/invite", body)
}

// lastMessage returns the newest captured email to a recipient.
func lastMessage(e *apptest.Env, to string) (subject, text string, links []string) {
	e.T.Helper()
	msgs, err := e.App.Outbox.List(context.Background(), to, 1)
	if err != nil || len(msgs) == 0 {
		e.T.Fatalf("no mail to %s: %v", to, err)
	}
	return msgs[0].Subject, msgs[0].Text, msgs[0].Links
}

func TestInviteAcceptedByLink(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		org := e.CreateOrg("acme", "NOT_ALLOWED", nil)
		inviter := e.CreateMember(org, "boss@acme.test")
		e.Backend(http.MethodPut, "/v1/b2b/organizations/"+org+"/members/"+inviter, map[string]any{"name": "Grace Boss"})

		r := invite(e, map[string]any{"organization_id": org, "email_address": "Nia@Acme.test", "name": "Nia",
			"untrusted_metadata": map[string]any{"team": "ops"}, "invited_by_member_id": inviter})
		m, _ := r.Body["member"].(map[string]any)
		if r.Status != 200 || m["status"] != "invited" || m["name"] != "Nia" || m["email_address"] != "nia@acme.test" || r.Body["organization"] == nil {
			t.Fatalf("invite: %s", r.Raw)
		}
		subject, text, links := lastMessage(e, "nia@acme.test")
		if subject != "You are invited to join Acme" || !strings.Contains(text, "Grace Boss (boss@acme.test) invited you to join Acme.") {
			t.Fatalf("invite email: %q\n%s", subject, text)
		}
		token := apptest.MagicLinkToken(t, links[0]) // the invite redirect URL, stytch_token_type=multi_tenant_magic_links

		// The invitee is not active until they accept.
		if st := e.MemberByID(org, r.Body["member_id"].(string))["status"]; st != "invited" {
			t.Fatalf("status before accepting = %v", st)
		}
		r = e.RedeemLink(token, nil)
		d := r.Data()
		if r.Status != 200 || d["member_authenticated"] != true || d["session_token"] == "" {
			t.Fatalf("accept: %s", r.Raw)
		}
		if m := d["member"].(map[string]any); m["status"] != "active" || m["email_address_verified"] != true {
			t.Fatalf("member after accepting = %v", m)
		}
		apptest.Want(t, e.RedeemLink(token, nil), 401, "unable_to_auth_magic_link")

		// An active member needs no invite.
		apptest.Want(t, invite(e, map[string]any{"organization_id": org, "email_address": "nia@acme.test"}), 400, "duplicate_member_email")
		// An inviter must belong to the organization.
		apptest.Want(t, invite(e, map[string]any{"organization_id": org, "email_address": "x@acme.test", "invited_by_member_id": "member-test-nope"}),
			404, "member_not_found")
	})
}

func TestInviteStatusesAndPolicy(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		org := e.CreateOrg("acme", "NOT_ALLOWED", nil)

		// A pending member becomes invited; inviting again resends.
		r := e.Backend(http.MethodPost, "/v1/b2b/organizations/"+org+"/members",
			map[string]any{"email_address": "pen@acme.test", "create_member_as_pending": true})
		pen := r.Body["member_id"].(string)
		for i := 0; i < 2; i++ {
			r = invite(e, map[string]any{"organization_id": org, "email_address": "pen@acme.test"})
			if r.Status != 200 || r.Body["member_id"] != pen || r.Body["member"].(map[string]any)["status"] != "invited" {
				t.Fatalf("invite pending member (%d): %s", i, r.Raw)
			}
		}
		// Both links work until used: the newest is accepted.
		_, _, links := lastMessage(e, "pen@acme.test")
		if r := e.RedeemLink(apptest.MagicLinkToken(t, links[0]), nil); r.Status != 200 {
			t.Fatalf("accept re-invite: %s", r.Raw)
		}

		// stytch_member is every member's already: an invite naming it is
		// refused for a pending member and a new address alike, and no
		// member is created.
		e.Backend(http.MethodPost, "/v1/b2b/organizations/"+org+"/members",
			map[string]any{"email_address": "pen2@acme.test", "create_member_as_pending": true})
		for _, email := range []string{"pen2@acme.test", "new@acme.test"} {
			apptest.Want(t, invite(e, map[string]any{"organization_id": org, "email_address": email,
				"roles": []string{"stytch_member"}}), 400, "cannot_assign_default_rbac_role_id")
		}
		apptest.Want(t, e.Backend(http.MethodGet, "/v1/b2b/organizations/"+org+"/member?email_address=new@acme.test", nil), 404, "member_not_found")

		// A deleted member with a verified address must be reactivated, not
		// re-invited (an unverified one is replaced: reinvite_test.go).
		del := e.CreateMember(org, "del@acme.test")
		e.SessionFor(org, "del@acme.test")
		e.Backend(http.MethodDelete, "/v1/b2b/organizations/"+org+"/members/"+del, nil)
		apptest.Want(t, invite(e, map[string]any{"organization_id": org, "email_address": "del@acme.test"}), 403, "inactive_member")

		// email_invites NOT_ALLOWED refuses everyone; RESTRICTED only admits
		// email_allowed_domains. Refused invites create no member.
		closed := e.Backend(http.MethodPost, "/v1/b2b/organizations", map[string]any{"organization_name": "Closed", "email_invites": "NOT_ALLOWED"}).
			Body["organization"].(map[string]any)["organization_id"].(string)
		apptest.Want(t, invite(e, map[string]any{"organization_id": closed, "email_address": "a@closed.test"}), 403, "email_invites_not_allowed")
		apptest.Want(t, e.Backend(http.MethodGet, "/v1/b2b/organizations/"+closed+"/member?email_address=a@closed.test", nil), 404, "member_not_found")
		restricted := e.Backend(http.MethodPost, "/v1/b2b/organizations", map[string]any{"organization_name": "Corp", "email_invites": "RESTRICTED",
			"email_allowed_domains": []string{"corp.test"}}).Body["organization"].(map[string]any)["organization_id"].(string)
		apptest.Want(t, invite(e, map[string]any{"organization_id": restricted, "email_address": "a@gmail.test"}), 403, "invalid_email_for_invites")
		if r := invite(e, map[string]any{"organization_id": restricted, "email_address": "a@corp.test"}); r.Status != 200 {
			t.Fatalf("allowed domain: %s", r.Raw)
		}
		// A policy tightened after a pending signup still applies to invites.
		pend := e.Backend(http.MethodPost, "/v1/b2b/organizations/"+restricted+"/members",
			map[string]any{"email_address": "p@other.test", "create_member_as_pending": true})
		if pend.Status != 200 {
			t.Fatal(pend.Raw)
		}
		apptest.Want(t, invite(e, map[string]any{"organization_id": restricted, "email_address": "p@other.test"}), 403, "invalid_email_for_invites")

		// Redirect URLs must be registered for invites.
		apptest.Want(t, invite(e, map[string]any{"organization_id": org, "email_address": "r@acme.test", "invite_redirect_url": "https://evil.test/"}),
			400, "no_match_for_provided_magic_link_url")
		bare, err := e.App.Projects.Create(context.Background(), project.CreateParams{Name: "No URLs"})
		if err != nil {
			t.Fatal(err)
		}
		bareOrg := e.Do(http.MethodPost, "/v1/b2b/organizations", map[string]any{"organization_name": "Bare"}, nil, bare.Project.ID, bare.Secret).
			Body["organization"].(map[string]any)["organization_id"].(string)
		apptest.Want(t, e.Do(http.MethodPost, "/v1/b2b/magic_links/email/invite", map[string]any{"organization_id": bareOrg, "email_address": "b@bare.test"},
			nil, bare.Project.ID, bare.Secret), 400, "no_invite_redirect_urls_set")

		// Another project cannot invite into this organization.
		apptest.Want(t, e.Do(http.MethodPost, "/v1/b2b/magic_links/email/invite", map[string]any{"organization_id": org, "email_address": "x@acme.test"},
			nil, bare.Project.ID, bare.Secret), 404, "organization_not_found")
		apptest.Want(t, invite(e, map[string]any{"organization_id": org, "email_address": "not-an-email"}), 400, "invalid_email")
	})
}

func TestInviteExpiry(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		org := e.CreateOrg("acme", "NOT_ALLOWED", nil)
		invite(e, map[string]any{"organization_id": org, "email_address": "short@acme.test", "invite_expiration_minutes": 5})
		_, _, short := lastMessage(e, "short@acme.test")
		invite(e, map[string]any{"organization_id": org, "email_address": "week@acme.test"})
		_, text, week := lastMessage(e, "week@acme.test")
		if !strings.Contains(text, "This link expires in 7 days.") {
			t.Fatalf("default invite lifetime:\n%s", text)
		}
		e.Clock.Advance(6 * time.Minute)
		apptest.Want(t, e.RedeemLink(apptest.MagicLinkToken(t, short[0]), nil), 401, "unable_to_auth_magic_link")
		e.Clock.Advance(6 * 24 * time.Hour)
		if r := e.RedeemLink(apptest.MagicLinkToken(t, week[0]), nil); r.Status != 200 {
			t.Fatalf("six-day-old invite: %s", r.Raw)
		}
		apptest.Want(t, invite(e, map[string]any{"organization_id": org, "email_address": "x@acme.test", "invite_expiration_minutes": 1}), 400, "invalid_request")
	})
}

func TestInviteFromTheSDK(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		org := e.CreateOrg("acme", "NOT_ALLOWED", nil)
		other := e.CreateOrg("other", "NOT_ALLOWED", nil)
		e.CreateAdmin(org, "admin@acme.test")
		e.CreateMember(org, "plain@acme.test")
		body := map[string]any{"email_address": "new@acme.test", "organization_id": other, "trusted_metadata": map[string]any{"x": 1}}

		apptest.Want(t, e.SDK(http.MethodPost, "/b2b/magic_links/email/invite", body, ""), 401, "user_unauthenticated")
		apptest.Want(t, e.SDK(http.MethodPost, "/b2b/magic_links/email/invite", body, "not-a-session"), 404, "session_not_found")
		apptest.Want(t, e.SDK(http.MethodPost, "/b2b/magic_links/email/invite", body, e.SessionFor(org, "plain@acme.test")), 403, "unauthorized_action")

		// The organization comes from the session, never from the body, and
		// the browser cannot write trusted metadata.
		r := e.SDK(http.MethodPost, "/b2b/magic_links/email/invite", body, e.SessionFor(org, "admin@acme.test"))
		d := r.Data()
		if r.Status != 200 || d["organization"].(map[string]any)["organization_id"] != org {
			t.Fatalf("sdk invite: %s", r.Raw)
		}
		m := d["member"].(map[string]any)
		if _, shown := m["trusted_metadata"]; m["status"] != "invited" || shown {
			t.Fatalf("invited member = %v", m)
		}
		if tm := e.MemberByID(org, m["member_id"].(string))["trusted_metadata"]; len(tm.(map[string]any)) != 0 {
			t.Fatalf("the browser wrote trusted metadata: %v", tm)
		}
		_, text, links := lastMessage(e, "new@acme.test")
		if !strings.Contains(text, "admin@acme.test") {
			t.Fatalf("invite does not name the inviter:\n%s", text)
		}
		r = e.RedeemLink(apptest.MagicLinkToken(t, links[0]), nil)
		if r.Status != 200 || r.Data()["organization"].(map[string]any)["organization_id"] != org {
			t.Fatalf("accept: %s", r.Raw)
		}
		// An invite token works with its own project's public token only.
		invite(e, map[string]any{"organization_id": org, "email_address": "cross@acme.test"})
		_, _, links = lastMessage(e, "cross@acme.test")
		proj := e.NewProject("Elsewhere")
		apptest.Want(t, e.Do(http.MethodPost, "/sdk/v1/b2b/magic_links/authenticate", map[string]any{"magic_links_token": apptest.MagicLinkToken(t, links[0])},
			http.Header{"Origin": {apptest.Origin}}, proj.PublicToken, proj.PublicToken), 401, "unable_to_auth_magic_link")
	})
}

func TestInviteRateLimits(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		org := e.CreateOrg("acme", "NOT_ALLOWED", nil)
		// One recipient cannot be flooded with invitations...
		limited := false
		for i := 0; i < 8 && !limited; i++ {
			limited = invite(e, map[string]any{"organization_id": org, "email_address": "flood@acme.test"}).ErrType() == "too_many_requests"
		}
		if !limited {
			t.Fatal("invites to one recipient are not rate-limited")
		}
		// ...but the customer's backend may invite a whole team from one
		// address (more than the per-address send limit).
		for i := 0; i < 55; i++ {
			if r := invite(e, map[string]any{"organization_id": org, "email_address": fmt.Sprintf("m%d@acme.test", i)}); r.Status != 200 {
				t.Fatalf("backend invite %d: %s", i, r.Raw)
			}
		}
	})
}
