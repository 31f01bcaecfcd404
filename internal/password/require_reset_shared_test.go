package password_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/latchkey/latchkey/internal/apptest"
	"github.com/latchkey/latchkey/internal/stepup"
)

// A forced reset (require_reset) takes a password away until the holder
// resets it through their inbox, in every organization that uses the
// address, as a deletion does. So a backend call acting for a member
// session may force one only where it may delete it (the fixtures and
// refusals of delete_shared_test.go); the project secret alone may always.

const requireReset = "/v1/b2b/passwords/email/require_reset"

// An admin of another organization creates a member with the victim's
// address (unverified, nothing sent) and asks, for their own session, for
// that member's password to be reset: refused, by member id or by address,
// and so for the victim's own organization now; the victim still logs in
// to corp. The project secret forces it through either membership.
func TestRequireResetSharedWithALookAlikeMember(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		f := newSharedFixture(e)
		r := e.SDK(http.MethodPost, "/b2b/organizations/members", map[string]any{"email_address": "victim@corp.test"}, f.boss)
		if r.Status != 200 || apptest.MemberOf(r.Data())["email_address_verified"] != false {
			t.Fatalf("create the look-alike member: %s", r.Raw)
		}
		lookAlike := apptest.MemberOf(r.Data())["member_id"].(string)

		wantShared(t, asMemberWith(e, requireReset, map[string]any{"organization_id": f.evil, "member_id": lookAlike}, f.boss))
		wantShared(t, asMemberWith(e, requireReset, map[string]any{"organization_id": f.evil, "email_address": "victim@corp.test"}, f.boss))
		f.wantPasswordKept(t, e)

		e.CreateAdmin(f.corp, "admin@corp.test")
		admin := e.SessionFor(f.corp, "admin@corp.test")
		wantShared(t, asMemberWith(e, requireReset, map[string]any{"organization_id": f.corp, "member_id": f.victimID}, admin))
		f.wantPasswordKept(t, e)

		if r := e.Backend(http.MethodPost, requireReset, map[string]any{"organization_id": f.evil, "member_id": lookAlike}); r.Status != 200 {
			t.Fatalf("require_reset with the project secret: %s", r.Raw)
		}
		apptest.Want(t, e.PasswordLogin(f.corp, "victim@corp.test", apptest.StrongPassword), 400, "reset_password")
	})
}

// Where the address is in one organization only, its admin (or the member,
// for their own) may force the reset for a fresh session; a stale session
// must step up first, as for a deletion.
func TestRequireResetOfAnAddressInOneOrganization(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		f := newSharedFixture(e)
		e.CreateAdmin(f.corp, "admin@corp.test")
		body := map[string]any{"organization_id": f.corp, "member_id": f.victimID}

		stale := e.SessionFor(f.corp, "admin@corp.test")
		e.Clock.Advance(stepup.Window + time.Minute)
		apptest.Want(t, asMemberWith(e, requireReset, body, stale), 403, "session_too_old")
		f.wantPasswordKept(t, e)

		for name, session := range map[string]func() string{
			"admin": func() string { return e.SessionFor(f.corp, "admin@corp.test") },
			"self":  func() string { return e.SessionFor(f.corp, "victim@corp.test") },
		} {
			t.Run(name, func(t *testing.T) {
				e.SetPassword(f.corp, "victim@corp.test", apptest.StrongPassword+"?")
				f.wantPasswordKeptAs(t, e, apptest.StrongPassword+"?")
				if r := asMemberWith(e, requireReset, body, session()); r.Status != 200 || r.Body["member_id"] != f.victimID {
					t.Fatalf("require_reset for a fresh session: %s", r.Raw)
				}
				apptest.Want(t, e.PasswordLogin(f.corp, "victim@corp.test", apptest.StrongPassword+"?"), 400, "reset_password")
			})
		}
	})
}

// A password set by a discovery reset for an address that is a member
// nowhere may not be forced to reset through an admin's unverified member
// record with the address.
func TestRequireResetOfNoMembershipNeedsTheAddressProvenHere(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		evil := e.CreateOrg("evil", "NOT_ALLOWED", nil)
		e.CreateAdmin(evil, "boss@evil.test")
		boss := e.SessionFor(evil, "boss@evil.test")
		apptest.Want(t, e.SDK(http.MethodPost, "/b2b/passwords/discovery/reset/start", map[string]any{"email_address": "solo@free.test"}, ""), 200, "")
		apptest.Want(t, e.SDK(http.MethodPost, "/b2b/passwords/discovery/reset", map[string]any{
			"password_reset_token": e.ResetLink("solo@free.test", "discovery"), "password": apptest.StrongPassword}, ""), 200, "")
		r := e.SDK(http.MethodPost, "/b2b/organizations/members", map[string]any{"email_address": "solo@free.test"}, boss)
		apptest.Want(t, r, 200, "")
		memberID := apptest.MemberOf(r.Data())["member_id"].(string)

		r = asMemberWith(e, requireReset, map[string]any{"organization_id": evil, "member_id": memberID}, boss)
		apptest.Want(t, r, 403, "unauthorized_action")
		if msg, _ := r.Body["error_message"].(string); !strings.Contains(msg, "has not verified") {
			t.Fatalf("refusal message: %s", r.Raw)
		}
		apptest.Want(t, e.SDK(http.MethodPost, "/b2b/passwords/discovery/authenticate", map[string]any{
			"email_address": "solo@free.test", "password": apptest.StrongPassword}, ""), 200, "")
	})
}

// asMemberWith posts body to the backend with the project secret and a
// member session.
func asMemberWith(e *apptest.Env, path string, body any, session string) apptest.Resp {
	return e.Do(http.MethodPost, path, body, http.Header{"X-Stytch-Member-Session": {session}}, e.Project.Project.ID, e.Project.Secret)
}

// wantPasswordKeptAs checks the victim logs in to corp with password pw.
func (f *sharedFixture) wantPasswordKeptAs(t *testing.T, e *apptest.Env, pw string) {
	t.Helper()
	if r := e.PasswordLogin(f.corp, "victim@corp.test", pw); r.Status != 200 {
		t.Fatalf("the victim's password login: %s", r.Raw)
	}
}
