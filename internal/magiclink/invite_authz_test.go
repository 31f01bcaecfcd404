package magiclink_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/latchkey/latchkey/internal/apptest"
	"github.com/latchkey/latchkey/internal/magiclink"
	"github.com/latchkey/latchkey/internal/organization"
	"github.com/latchkey/latchkey/internal/rbac"
)

// invitePolicy gives the project a recruiter (stytch.member create only)
// and a renamer (create and update.info.name) role.
func invitePolicy(t *testing.T, e *apptest.Env) {
	t.Helper()
	_, err := e.App.RBAC.SetCustom(context.Background(), e.Project.Project.ID, rbac.Policy{Roles: []rbac.Role{
		{RoleID: "recruiter", Permissions: []rbac.Permission{{ResourceID: "stytch.member", Actions: []string{"create"}}}},
		{RoleID: "renamer", Permissions: []rbac.Permission{{ResourceID: "stytch.member", Actions: []string{"create", "update.info.name"}}}},
	}})
	if err != nil {
		t.Fatalf("set policy: %v", err)
	}
}

// loginWithRole creates an active member of org holding role and returns
// their id and session token.
func loginWithRole(t *testing.T, e *apptest.Env, org, email, name, role string) (id, token string) {
	t.Helper()
	r := e.Backend(http.MethodPost, "/v1/b2b/organizations/"+org+"/members",
		map[string]any{"email_address": email, "name": name, "roles": []string{role}})
	apptest.Want(t, r, 200, "")
	token, _ = e.LoginByEmailOTP(org, email)
	return r.Body["member_id"].(string), token
}

// mailCount is how many emails were captured for to.
func mailCount(t *testing.T, e *apptest.Env, to string) int {
	t.Helper()
	msgs, err := e.App.Outbox.List(context.Background(), to, 100)
	if err != nil {
		t.Fatal(err)
	}
	return len(msgs)
}

// Acting for a member, the invitation is that member's: naming an admin as
// the inviter would have the customer's own mail say the admin invited
// the recipient. The project secret may still name any member, and the
// SDK face ignores the field (the session's member invites).
func TestInviteActingForAMemberNamesNoOtherInviter(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		invitePolicy(t, e)
		org := e.CreateOrg("acme", "ALL_ALLOWED", nil)
		ceo := e.CreateAdmin(org, "ceo@acme.test")
		apptest.Want(t, e.Backend(http.MethodPut, "/v1/b2b/organizations/"+org+"/members/"+ceo, map[string]any{"name": "The CEO"}), 200, "")
		rita, token := loginWithRole(t, e, org, "rita@acme.test", "Rita Recruiter", "recruiter")
		as := func(email, inviter string) apptest.Resp {
			body := map[string]any{"organization_id": org, "email_address": email}
			if inviter != "" {
				body["invited_by_member_id"] = inviter
			}
			return e.BackendAs(http.MethodPost, "/v1/b2b/magic_links/email/invite", body, organization.MemberSessionHeader, token)
		}
		wantInviter := func(email, who string) {
			t.Helper()
			if _, text, _ := lastMessage(e, email); !strings.Contains(text, who+" invited you to join Acme.") {
				t.Fatalf("invite to %s does not name %s:\n%s", email, who, text)
			}
		}

		r := as("phished@acme.test", ceo)
		apptest.Want(t, r, 403, "unauthorized_action")
		if msg, _ := r.Body["error_message"].(string); !strings.HasPrefix(msg, "invited_by_member_id ") {
			t.Fatalf("refusal does not name the field: %q", msg)
		}
		if n := mailCount(t, e, "phished@acme.test"); n != 0 {
			t.Fatalf("%d emails sent for the refused invite", n)
		}
		apptest.Want(t, e.Backend(http.MethodGet, "/v1/b2b/organizations/"+org+"/member?email_address=phished@acme.test", nil),
			404, "member_not_found")

		apptest.Want(t, as("own@acme.test", rita), 200, "")
		wantInviter("own@acme.test", "Rita Recruiter (rita@acme.test)")
		apptest.Want(t, as("bare@acme.test", ""), 200, "")
		wantInviter("bare@acme.test", "Rita Recruiter (rita@acme.test)")

		apptest.Want(t, invite(e, map[string]any{"organization_id": org, "email_address": "secret@acme.test", "invited_by_member_id": ceo}), 200, "")
		wantInviter("secret@acme.test", "The CEO (ceo@acme.test)")

		r = e.SDK(http.MethodPost, "/b2b/magic_links/email/invite", map[string]any{"email_address": "sdk@acme.test", "invited_by_member_id": ceo}, token)
		apptest.Want(t, r, 200, "")
		wantInviter("sdk@acme.test", "Rita Recruiter (rita@acme.test)")
	})
}

// Re-inviting an invited member rewrites their name and untrusted
// metadata: acting for a member, that needs the permissions a member
// update asks for them, with the update's refusal. Resending, or naming
// what the member already holds, needs nothing beyond create.
func TestReinviteActingForAMemberChangesOnlyWhatTheyMayUpdate(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		invitePolicy(t, e)
		org := e.CreateOrg("acme", "ALL_ALLOWED", nil)
		_, rita := loginWithRole(t, e, org, "rita@acme.test", "Rita", "recruiter")
		_, ren := loginWithRole(t, e, org, "ren@acme.test", "Ren", "renamer")
		r := invite(e, map[string]any{"organization_id": org, "email_address": "ann@acme.test", "name": "Ann Real",
			"untrusted_metadata": map[string]any{"team": "ops", "level": 2}})
		apptest.Want(t, r, 200, "")
		ann := r.Body["member_id"].(string)
		reinvite := func(token string, fields map[string]any) apptest.Resp {
			body := map[string]any{"organization_id": org, "email_address": "ann@acme.test"}
			for k, v := range fields {
				body[k] = v
			}
			return e.BackendAs(http.MethodPost, "/v1/b2b/magic_links/email/invite", body, organization.MemberSessionHeader, token)
		}
		wantAnn := func(name, team string) {
			t.Helper()
			m := e.MemberByID(org, ann)
			if m["name"] != name || m["untrusted_metadata"].(map[string]any)["team"] != team || m["status"] != "invited" {
				t.Fatalf("ann = %v, want name %q team %q", m, name, team)
			}
		}

		// The direct update the re-invite would amount to is refused...
		update := e.BackendAs(http.MethodPut, "/v1/b2b/organizations/"+org+"/members/"+ann, map[string]any{"name": "Ann Fake"},
			organization.MemberSessionHeader, rita)
		apptest.Want(t, update, 403, "unauthorized_action")
		// ...and so is the re-invite, with the same refusal, and no mail.
		sent := mailCount(t, e, "ann@acme.test")
		r = reinvite(rita, map[string]any{"name": "Ann Fake"})
		apptest.Want(t, r, 403, "unauthorized_action")
		if r.Body["error_message"] != update.Body["error_message"] {
			t.Fatalf("re-invite refused with %q, the update with %q", r.Body["error_message"], update.Body["error_message"])
		}
		apptest.Want(t, reinvite(rita, map[string]any{"untrusted_metadata": map[string]any{"team": "sales"}}), 403, "unauthorized_action")
		apptest.Want(t, e.SDK(http.MethodPost, "/b2b/magic_links/email/invite", map[string]any{"email_address": "ann@acme.test", "name": "Ann Fake"}, rita),
			403, "unauthorized_action")
		wantAnn("Ann Real", "ops")
		if n := mailCount(t, e, "ann@acme.test"); n != sent {
			t.Fatalf("%d emails after the refused re-invites, want %d", n, sent)
		}

		// Resending, or naming what Ann already has, changes nothing. (A
		// new window of the per-recipient send limit first.)
		e.Clock.Advance(magiclink.SendPerEmail.Window)
		apptest.Want(t, reinvite(rita, nil), 200, "")
		apptest.Want(t, reinvite(rita, map[string]any{"name": " Ann Real ", "untrusted_metadata": map[string]any{"team": "ops"}}), 200, "")
		wantAnn("Ann Real", "ops")
		if n := mailCount(t, e, "ann@acme.test"); n != sent+2 {
			t.Fatalf("%d emails after two resends, want %d", n, sent+2)
		}

		// A role with update.info.name may rename (not change metadata);
		// the project secret may change anything.
		apptest.Want(t, reinvite(ren, map[string]any{"untrusted_metadata": map[string]any{"team": "sales"}}), 403, "unauthorized_action")
		apptest.Want(t, reinvite(ren, map[string]any{"name": "Ann Renamed"}), 200, "")
		wantAnn("Ann Renamed", "ops")
		apptest.Want(t, invite(e, map[string]any{"organization_id": org, "email_address": "ann@acme.test", "name": "Ann Again",
			"untrusted_metadata": map[string]any{"team": "sales"}}), 200, "")
		wantAnn("Ann Again", "sales")
	})
}
