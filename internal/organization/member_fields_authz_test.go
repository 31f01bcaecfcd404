package organization_test

import (
	"net/http"
	"testing"
	"time"

	"github.com/latchkey/latchkey/internal/apptest"
	"github.com/latchkey/latchkey/internal/organization"
	"github.com/latchkey/latchkey/internal/rbac"
	"github.com/latchkey/latchkey/internal/stepup"
)

// Each MFA field of a member update needs its own stytch.member action,
// the one the Node client documents for it, on the SDK face and on the
// backend face acting for a member session; a member sets their own
// through stytch.self; the external id is the backend's alone.
func TestMemberFieldsNeedTheirActions(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		role := func(id, action string) rbac.Role {
			return rbac.Role{RoleID: id, Permissions: []rbac.Permission{{ResourceID: "stytch.member", Actions: []string{action}}}}
		}
		if _, err := e.App.RBAC.SetCustom(t.Context(), e.Project.Project.ID, rbac.Policy{Roles: []rbac.Role{
			role("phones", "update.info.mfa-phone"), role("enrollers", "update.settings.mfa-enrolled"),
			role("defaulters", "update.settings.default-mfa-method")}}); err != nil {
			t.Fatal(err)
		}
		org := e.CreateOrg("roles", "ALL_ALLOWED", nil)
		target := e.CreateMember(org, "ada@roles.test")
		sessionAs := func(email, role string) string {
			apptest.Want(t, e.Backend(http.MethodPost, "/v1/b2b/organizations/"+org+"/members",
				map[string]any{"email_address": email, "roles": []string{role}}), 200, "")
			return e.SessionFor(org, email)
		}
		sessions := map[string]string{"phones": sessionAs("p@roles.test", "phones"), "enrollers": sessionAs("e@roles.test", "enrollers"),
			"defaulters": sessionAs("d@roles.test", "defaulters")}
		fields := []struct {
			role, field string
			value       any
			granted     string // the error type once authorized ("" for success)
		}{
			{"phones", "mfa_phone_number", "+12025550123", ""},
			{"enrollers", "mfa_enrolled", true, ""},
			{"defaulters", "default_mfa_method", "totp", "default_mfa_member_missing_factor"},
		}
		for _, f := range fields {
			for role, token := range sessions {
				body := map[string]any{f.field: f.value}
				sdk := e.SDK(http.MethodPut, "/b2b/organizations/members/"+target, body, token)
				backend := e.BackendAs(http.MethodPut, memberPath(org, target), body, organization.MemberSessionHeader, token)
				for face, r := range map[string]apptest.Resp{"sdk": sdk, "backend": backend} {
					switch {
					case role == f.role && f.granted == "":
						apptest.Want(t, r, 200, "")
					case role == f.role:
						apptest.Want(t, r, 400, f.granted)
					case r.Status != 403 || r.ErrType() != "unauthorized_action":
						t.Fatalf("%s %s by %s: answered %d %s", face, f.field, role, r.Status, r.Raw)
					}
				}
			}
		}
		wantFields(t, e.MemberByID(org, target), map[string]any{"mfa_phone_number": "+12025550123", "mfa_enrolled": true})

		// A member's own MFA fields through stytch.self, on the self route and the {member_id} route.
		f := e.NewMeFixture()
		apptest.Want(t, e.SDK(http.MethodPut, "/b2b/organizations/members/update",
			map[string]any{"mfa_enrolled": true, "mfa_phone_number": "+12025550124"}, f.Plain), 200, "")
		apptest.Want(t, e.SDK(http.MethodPut, "/b2b/organizations/members/"+f.PlainID, map[string]any{"mfa_enrolled": false}, f.Plain), 200, "")
		wantFields(t, e.MemberByID(f.Acme, f.PlainID), map[string]any{"mfa_enrolled": false, "mfa_phone_number": "+12025550124"})
		apptest.Want(t, e.SDK(http.MethodPut, "/b2b/organizations/members/"+f.AdminID, map[string]any{"mfa_enrolled": true}, f.Plain),
			403, "unauthorized_action")

		// external_id: even an admin acting as a member may not set or clear it.
		ext := map[string]any{"external_id": "mine"}
		for name, r := range map[string]apptest.Resp{
			"sdk update":     e.SDK(http.MethodPut, "/b2b/organizations/members/"+f.PlainID, ext, f.Admin),
			"backend update": e.BackendAs(http.MethodPut, memberPath(f.Acme, f.PlainID), ext, organization.MemberSessionHeader, f.Admin),
			"backend create": e.BackendAs(http.MethodPost, "/v1/b2b/organizations/"+f.Acme+"/members",
				map[string]any{"email_address": "x@acme.test", "external_id": "mine"}, organization.MemberSessionHeader, f.Admin),
			"backend delete": e.BackendAs(http.MethodDelete, memberPath(f.Acme, f.PlainID)+"/external_id", nil,
				organization.MemberSessionHeader, f.Admin),
		} {
			if r.Status != 403 || r.ErrType() != "unauthorized_action" {
				t.Fatalf("%s of external_id acting for a member: %d %s", name, r.Status, r.Raw)
			}
		}
	})
}

// A session changes MFA settings, its member's own or another member's,
// only with a factor completed in the last stepup.Window (session_too_old
// otherwise), as enrolling or removing a factor does: a stolen or
// unattended session must not turn MFA off. An unchanged value is no
// change, and the backend's secret is no session.
func TestMemberMFAChangesNeedARecentFactor(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		f := e.NewMeFixture()
		e.Clock.Advance(stepup.Window + time.Minute)
		for _, body := range []map[string]any{{"mfa_enrolled": true}, {"mfa_phone_number": "+12025550123"}, {"default_mfa_method": "totp"}} {
			for name, r := range map[string]apptest.Resp{
				"self":            e.SDK(http.MethodPut, "/b2b/organizations/members/update", body, f.Plain),
				"admin sdk":       e.SDK(http.MethodPut, "/b2b/organizations/members/"+f.PlainID, body, f.Admin),
				"admin backend":   e.BackendAs(http.MethodPut, memberPath(f.Acme, f.PlainID), body, organization.MemberSessionHeader, f.Admin),
				"own member page": e.SDK(http.MethodPut, "/b2b/organizations/members/"+f.AdminID, body, f.Admin),
			} {
				if r.Status != 403 || r.ErrType() != "session_too_old" {
					t.Fatalf("%s %v from a stale session: %d %s", name, body, r.Status, r.Raw)
				}
			}
		}
		apptest.Want(t, e.SDK(http.MethodPut, "/b2b/organizations/members/update", map[string]any{"mfa_enrolled": false, "name": "Bob"}, f.Plain), 200, "")
		wantFields(t, e.MemberByID(f.Acme, f.PlainID), map[string]any{"mfa_enrolled": false, "mfa_phone_number": "", "name": "Bob"})

		fresh := e.SessionFor(f.Acme, "bob@acme.test")
		apptest.Want(t, e.SDK(http.MethodPut, "/b2b/organizations/members/update", map[string]any{"mfa_enrolled": true}, fresh), 200, "")
		apptest.Want(t, e.Backend(http.MethodPut, memberPath(f.Acme, f.PlainID), map[string]any{"mfa_phone_number": "+12025550123"}), 200, "")
		wantFields(t, e.MemberByID(f.Acme, f.PlainID), map[string]any{"mfa_enrolled": true, "mfa_phone_number": "+12025550123"})
	})
}

// A backend address change retires the old address, as a verified
// change does: it stays the member's (no other member may take it) until
// unlinked, and the member may change back to it. unlink_email frees it
// at once instead. preserve_existing_sessions cannot keep the member's
// sessions through an address change, which ends them whatever the
// caller asks (organization.AddressHolder): it is refused, not ignored.
func TestMemberAddressChangeRetiresOrUnlinksTheOldAddress(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		org := e.CreateOrg("acme", "ALL_ALLOWED", nil)
		ada, bob := e.CreateMember(org, "ada@acme.test"), e.CreateMember(org, "bob@acme.test")
		token := e.SessionFor(org, "ada@acme.test")
		alive := func() apptest.Resp {
			return e.Backend(http.MethodPost, "/v1/b2b/sessions/authenticate", map[string]any{"session_token": token})
		}
		retired := func(id string) []string {
			var out []string
			for _, r := range e.MemberByID(org, id)["retired_email_addresses"].([]any) {
				out = append(out, r.(map[string]any)["email_address"].(string))
			}
			return out
		}

		apptest.Want(t, e.Backend(http.MethodPut, memberPath(org, ada), map[string]any{"email_address": "ada2@acme.test",
			"preserve_existing_sessions": true}), 400, "cannot_preserve_existing_sessions")
		apptest.Want(t, alive(), 200, "")
		wantFields(t, e.MemberByID(org, ada), map[string]any{"email_address": "ada@acme.test"})

		apptest.Want(t, e.Backend(http.MethodPut, memberPath(org, ada), map[string]any{"email_address": "ada2@acme.test"}), 200, "")
		apptest.Want(t, alive(), 404, "session_not_found")
		if got := retired(ada); len(got) != 1 || got[0] != "ada@acme.test" {
			t.Fatalf("retired after the change: %v", got)
		}
		apptest.Want(t, e.Backend(http.MethodPost, "/v1/b2b/organizations/"+org+"/members", map[string]any{"email_address": "ada@acme.test"}),
			400, "duplicate_member_email")
		apptest.Want(t, e.Backend(http.MethodPut, memberPath(org, bob), map[string]any{"email_address": "ada@acme.test"}), 400, "duplicate_member_email")

		apptest.Want(t, e.Backend(http.MethodPut, memberPath(org, bob), map[string]any{"email_address": "bob2@acme.test", "unlink_email": true}), 200, "")
		if got := retired(bob); len(got) != 0 {
			t.Fatalf("unlink_email retired %v", got)
		}
		e.CreateMember(org, "bob@acme.test")

		// Back to a former address of one's own: it leaves the retired list.
		apptest.Want(t, e.Backend(http.MethodPut, memberPath(org, ada), map[string]any{"email_address": "ada@acme.test"}), 200, "")
		if got := retired(ada); len(got) != 1 || got[0] != "ada2@acme.test" {
			t.Fatalf("retired after changing back: %v", got)
		}
	})
}
