package organization_test

import (
	"net/http"
	"testing"

	"github.com/latchkey/latchkey/internal/apptest"
)

// Creating a member with a deleted member's address follows the invite's
// rule (magiclink's reinvite_test.go): a never-verified deleted member is
// replaced by a new one, and a verified one must be reactivated instead.
func TestCreateMemberOverADeletedMember(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		org := e.CreateOrg("acme", "NOT_ALLOWED", nil)
		members := "/v1/b2b/organizations/" + org + "/members"
		old := e.CreateMember(org, "pat@acme.test")
		e.DeleteMember(org, old)

		r := e.Backend(http.MethodPost, members, map[string]any{"email_address": "pat@acme.test", "name": "Pat"})
		apptest.Want(t, r, 200, "")
		id := r.Body["member_id"].(string)
		if m := r.Body["member"].(map[string]any); id == old || m["status"] != "active" || m["name"] != "Pat" {
			t.Fatalf("create over %s answered %s", old, r.Raw)
		}
		apptest.Want(t, e.Backend(http.MethodGet, "/v1/b2b/organizations/"+org+"/member?member_id="+old, nil), 404, "member_not_found")
		if n := e.Count(`SELECT COUNT(*) FROM audit_events WHERE event_type = 'member_purged' AND member_id = $1`, old); n != 1 {
			t.Fatalf("%d member_purged events for %s", n, old)
		}

		// Now verified, then deleted: reactivate, not create (the answer
		// was duplicate_member_email before the rule).
		e.SessionFor(org, "pat@acme.test")
		e.DeleteMember(org, id)
		r = e.Backend(http.MethodPost, members, map[string]any{"email_address": "pat@acme.test"})
		apptest.Want(t, r, 403, "inactive_member")
		if msg := r.Body["error_message"]; msg != "This member is deleted; reactivate the member instead of creating them." {
			t.Fatalf("error_message %q", msg)
		}
		// Members that are not deleted are duplicates, as ever.
		e.CreateMember(org, "ann@acme.test")
		apptest.Want(t, e.Backend(http.MethodPost, members, map[string]any{"email_address": "ann@acme.test"}), 400, "duplicate_member_email")
	})
}

// The SDK face's member creation (stytch.member create) applies the rule
// too.
func TestSDKCreateMemberOverARevokedInvitation(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		org := e.CreateOrg("acme", "NOT_ALLOWED", nil)
		e.CreateAdmin(org, "boss@acme.test")
		admin := e.SessionFor(org, "boss@acme.test")
		r := e.Backend(http.MethodPost, "/v1/b2b/magic_links/email/invite", map[string]any{"organization_id": org, "email_address": "nia@acme.test"})
		apptest.Want(t, r, 200, "")
		old := r.Body["member_id"].(string)
		e.DeleteMember(org, old)
		r = e.SDK(http.MethodPost, "/b2b/organizations/members", map[string]any{"email_address": "nia@acme.test"}, admin)
		apptest.Want(t, r, 200, "")
		if id := r.Data()["member"].(map[string]any)["member_id"]; id == old {
			t.Fatalf("SDK create kept the revoked member %s", old)
		}
		if n := e.Count(`SELECT COUNT(*) FROM members WHERE member_id = $1`, old); n != 0 {
			t.Fatalf("the revoked member %s remains", old)
		}
	})
}
