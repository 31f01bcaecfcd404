package magiclink_test

import (
	"testing"
	"time"

	"github.com/latchkey/latchkey/internal/apptest"
)

// inviteLink invites email to org (extra adds fields) and returns the
// invitation's link token and the member's id.
func inviteLink(t *testing.T, e *apptest.Env, org, email string, extra map[string]any) (token, memberID string) {
	t.Helper()
	body := map[string]any{"organization_id": org, "email_address": email}
	for k, v := range extra {
		body[k] = v
	}
	r := invite(e, body)
	apptest.Want(t, r, 200, "")
	_, _, links := lastMessage(e, email)
	return apptest.MagicLinkToken(t, links[0]), r.Body["member_id"].(string)
}

// An invite link is a week-long login credential for joining: once the
// invitee is active another way (here a login code, six days before the
// link would expire), it no longer logs anyone in. It reads as a used
// link, and the member stays as the code left them.
func TestInviteLinkRefusedOnceTheMemberIsActive(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		org := e.CreateOrg("acme", "NOT_ALLOWED", nil)
		token, id := inviteLink(t, e, org, "nia@acme.test", nil)
		e.Login(org, "nia@acme.test")
		if m := e.MemberByID(org, id); m["status"] != "active" {
			t.Fatalf("member after the code login: %v", m)
		}
		e.Clock.Advance(6 * 24 * time.Hour)
		apptest.Want(t, e.RedeemLink(token, nil), 401, "unable_to_auth_magic_link")
	})
}

// A re-invite replaces the invitation: the first link stops working at
// once, and the new one lives as long as the re-invite said (five
// minutes here), not the week the first was given.
func TestReinviteSpendsTheEarlierInviteLinks(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		org := e.CreateOrg("acme", "NOT_ALLOWED", nil)
		first, id := inviteLink(t, e, org, "nia@acme.test", nil)
		second, again := inviteLink(t, e, org, "nia@acme.test", map[string]any{"invite_expiration_minutes": 5})
		if again != id {
			t.Fatalf("the re-invite made member %s, want %s", again, id)
		}
		e.Clock.Advance(6 * time.Minute)
		apptest.Want(t, e.RedeemLink(first, nil), 401, "unable_to_auth_magic_link")
		apptest.Want(t, e.RedeemLink(second, nil), 401, "unable_to_auth_magic_link")
		if m := e.MemberByID(org, id); m["status"] != "invited" {
			t.Fatalf("member after the refused links: %v", m)
		}

		// The newest invitation's link is the one that works.
		third, _ := inviteLink(t, e, org, "nia@acme.test", nil)
		apptest.Want(t, e.RedeemLink(third, nil), 200, "")
	})
}
