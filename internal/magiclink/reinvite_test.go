package magiclink_test

import (
	"net/http"
	"testing"

	"github.com/latchkey/latchkey/internal/apptest"
	"github.com/latchkey/latchkey/internal/organization"
	"github.com/latchkey/latchkey/internal/store"
	"github.com/latchkey/latchkey/internal/store/storetest"
)

// Re-inviting a revoked invitation (the Admin Portal's "Resending an
// invite to this email will create a new Member record"): the deleted,
// never-verified member is removed with what it held, and the address gets
// a new invited member with a new member_id.

// reinvited checks the answer to a re-invite of email that replaced old
// and returns the new member's id.
func reinvited(t *testing.T, e *apptest.Env, org, email, old string, m map[string]any) string {
	t.Helper()
	id, _ := m["member_id"].(string)
	if id == "" || id == old || m["status"] != "invited" || m["email_address"] != email || m["email_address_verified"] != false {
		t.Fatalf("re-invite of %s answered %v; the revoked member was %s", email, m, old)
	}
	apptest.Want(t, e.Backend(http.MethodGet, "/v1/b2b/organizations/"+org+"/member?member_id="+old, nil), 404, "member_not_found")
	if n := e.Count(`SELECT COUNT(*) FROM members WHERE organization_id = $1 AND email_address = $2`, org, email); n != 1 {
		t.Fatalf("%d members with %s, want the new one", n, email)
	}
	// The old member's links went with its row (ON DELETE CASCADE), and
	// the audit log keeps its end.
	if n := e.Count(`SELECT COUNT(*) FROM magic_links WHERE member_id = $1`, old); n != 0 {
		t.Fatalf("%d magic links of the removed member remain", n)
	}
	if n := e.Count(`SELECT COUNT(*) FROM audit_events WHERE event_type = 'member_purged' AND member_id = $1
		AND organization_id = $2 AND details LIKE $3`, old, org, `%"replaced_by":"`+id+`"%`); n != 1 {
		t.Fatalf("%d member_purged events for %s replaced by %s, want 1", n, old, id)
	}
	return id
}

func TestReinviteAfterRevokingCreatesANewMember(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		org := e.CreateOrg("acme", "NOT_ALLOWED", nil)
		r := invite(e, map[string]any{"organization_id": org, "email_address": "nia@acme.test", "name": "Nia"})
		apptest.Want(t, r, 200, "")
		old := r.Body["member_id"].(string)
		_, _, links := lastMessage(e, "nia@acme.test")
		oldToken := apptest.MagicLinkToken(t, links[0])
		e.DeleteMember(org, old) // the portal's "Revoke invite"

		r = invite(e, map[string]any{"organization_id": org, "email_address": "nia@acme.test", "name": "Nia Again",
			"trusted_metadata": map[string]any{"tier": "gold"}, "roles": []string{"stytch_admin"}})
		apptest.Want(t, r, 200, "")
		m := r.Body["member"].(map[string]any)
		id := reinvited(t, e, org, "nia@acme.test", old, m)
		// Exactly a first invite: the invite's name, metadata and roles.
		if m["name"] != "Nia Again" || m["trusted_metadata"].(map[string]any)["tier"] != "gold" || m["is_admin"] != true {
			t.Fatalf("new member = %v", m)
		}

		// The revoked invitation's link no longer works; the new one logs
		// in as the new member.
		apptest.Want(t, e.RedeemLink(oldToken, nil), 401, "unable_to_auth_magic_link")
		_, _, links = lastMessage(e, "nia@acme.test")
		r = e.RedeemLink(apptest.MagicLinkToken(t, links[0]), nil)
		apptest.Want(t, r, 200, "")
		if got := r.Data()["member"].(map[string]any); got["member_id"] != id || got["status"] != "active" {
			t.Fatalf("the new invite logged in as %v, want %s", got, id)
		}
	})
}

// A deleted member whose address was verified is the person's: the
// portal promises they can be reactivated, so an invite is refused as
// before and the member stays.
func TestReinviteOfAVerifiedDeletedMemberIsRefused(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		org := e.CreateOrg("acme", "NOT_ALLOWED", nil)
		id := e.CreateMember(org, "ver@acme.test")
		e.SessionFor(org, "ver@acme.test") // verifies the address
		e.DeleteMember(org, id)
		r := invite(e, map[string]any{"organization_id": org, "email_address": "ver@acme.test"})
		apptest.Want(t, r, 403, "inactive_member")
		if msg := r.Body["error_message"]; msg != "This member is deleted; reactivate the member instead of inviting them." {
			t.Fatalf("error_message %q", msg)
		}
		if m := e.MemberByID(org, id); m["status"] != "deleted" {
			t.Fatalf("member after the refused invite: %v", m)
		}
		if n := e.Count(`SELECT COUNT(*) FROM audit_events WHERE event_type = 'member_purged'`); n != 0 {
			t.Fatalf("%d member_purged events", n)
		}
	})
}

// The Admin Portal's path: an admin's SDK session revokes the invitation
// and invites the address again.
func TestSDKReinviteAfterRevoking(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		org := e.CreateOrg("acme", "NOT_ALLOWED", nil)
		e.CreateAdmin(org, "boss@acme.test")
		admin := e.SessionFor(org, "boss@acme.test")
		body := map[string]any{"email_address": "nia@acme.test"}
		r := e.SDK(http.MethodPost, "/b2b/magic_links/email/invite", body, admin)
		apptest.Want(t, r, 200, "")
		old := r.Data()["member"].(map[string]any)["member_id"].(string)
		apptest.Want(t, e.SDK(http.MethodDelete, "/b2b/organizations/members/"+old, nil, admin), 200, "")

		r = e.SDK(http.MethodPost, "/b2b/magic_links/email/invite", body, admin)
		apptest.Want(t, r, 200, "")
		id := reinvited(t, e, org, "nia@acme.test", old, r.Data()["member"].(map[string]any))
		_, _, links := lastMessage(e, "nia@acme.test")
		r = e.RedeemLink(apptest.MagicLinkToken(t, links[0]), nil)
		if r.Status != 200 || r.Data()["member"].(map[string]any)["member_id"] != id {
			t.Fatalf("the new invite: %s", r.Raw)
		}
	})
}

// A login does not free the address: a deleted member who tries to sign
// in stays, whether told they are inactive (backend face) or answered as a
// stranger the organization admits and sent a notice (SDK face).
func TestLoginOfARevokedInviteeDoesNotReplaceThem(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		org := e.CreateOrg("acme", "ALL_ALLOWED", nil)
		r := invite(e, map[string]any{"organization_id": org, "email_address": "nia@acme.test"})
		old := r.Body["member_id"].(string)
		e.DeleteMember(org, old)
		apptest.Want(t, backendLink(e, org, "nia@acme.test", nil), 403, "inactive_member")
		apptest.Want(t, e.SendLink(org, "nia@acme.test", nil), 200, "")
		if m := e.MemberByID(org, old); m["status"] != "deleted" {
			t.Fatalf("member after the login: %v", m)
		}
	})
}

// An invite while an admin reactivates the revoked invitee (PostgreSQL,
// the reactivation held open until the invite waits for it): the purge is
// conditional, so the invite finds the member active again and refuses as
// for any active member, rather than removing them.
func TestReinviteDuringAReactivation(t *testing.T) {
	t.Parallel()
	e, org := raceOrg(t)
	r := invite(e, map[string]any{"organization_id": org.OrganizationID, "email_address": "nia@acme.test"})
	old := r.Body["member_id"].(string)
	e.DeleteMember(org.OrganizationID, old)
	reactivate := func(q store.Querier) error {
		_, err := e.App.Orgs.SetMemberStatus(t.Context(), q, org, old, organization.StatusActive,
			[]string{organization.StatusDeleted}, nil)
		return err
	}
	if err, _ := storetest.Overlap(t, e.App.DB, reactivate, func() error {
		r = invite(e, map[string]any{"organization_id": org.OrganizationID, "email_address": "nia@acme.test"})
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	apptest.Want(t, r, 400, "duplicate_member_email")
	if id := wantOneMember(t, e, org.OrganizationID, "nia@acme.test", organization.StatusActive); id != old {
		t.Fatalf("member %s holds the address, want the reactivated %s", id, old)
	}
}
