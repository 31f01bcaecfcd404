package password_test

import (
	"net/http"
	"testing"
	"time"

	"github.com/latchkey/latchkey/internal/apptest"
	"github.com/latchkey/latchkey/internal/stepup"
)

// The backend password deletion acting for a member session (the
// X-Stytch-Member-Session header) needs a recent factor, as the SDK's
// deletion and the backend's start_email_update do, with the same answer;
// a fresh session may delete, and the project secret alone needs none.
func TestBackendDeletePasswordForAStaleMemberSession(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		f := e.NewMeFixture()
		e.SetPassword(f.Acme, "ada@acme.test", apptest.StrongPassword)
		e.SetPassword(f.Acme, "bob@acme.test", apptest.StrongPassword)
		adaPW, bobPW := e.PasswordID(f.Acme, f.AdminID), e.PasswordID(f.Acme, f.PlainID)
		asMember := func(method, path string, body any, session string) apptest.Resp {
			return e.Do(method, path, body, http.Header{"X-Stytch-Member-Session": {session}}, e.Project.Project.ID, e.Project.Secret)
		}
		passwords := "/v1/b2b/organizations/" + f.Acme + "/members/passwords/"

		e.Clock.Advance(stepup.Window + time.Minute)
		apptest.Want(t, asMember(http.MethodPost, "/v1/b2b/organizations/"+f.Acme+"/members/"+f.PlainID+"/start_email_update",
			map[string]any{"email_address": "bob2@acme.test"}, f.Admin), 403, "session_too_old")
		apptest.Want(t, asMember(http.MethodDelete, passwords+bobPW, nil, f.Admin), 403, "session_too_old")
		apptest.Want(t, asMember(http.MethodDelete, passwords+bobPW, nil, f.Plain), 403, "session_too_old")
		if e.PasswordID(f.Acme, f.PlainID) != bobPW {
			t.Fatal("a refused deletion removed the password")
		}

		// A fresh login allows it.
		fresh := e.SessionFor(f.Acme, "ada@acme.test")
		if r := asMember(http.MethodDelete, passwords+bobPW, nil, fresh); r.Status != 200 || e.PasswordID(f.Acme, f.PlainID) != "" {
			t.Fatalf("deletion with a fresh session: %s", r.Raw)
		}

		// The project secret alone is no session to step up.
		if r := e.Backend(http.MethodDelete, passwords+adaPW, nil); r.Status != 200 {
			t.Fatalf("deletion with the project secret: %s", r.Raw)
		}
	})
}

// A password belongs to an email address, shared by its memberships in
// every organization, and any organization's admin can create a member
// with any address (unverified, nothing sent). Such a member record is no
// hold on the password: deleting it for a member session, on either face,
// needs a holder who verified the address in the caller's organization.
// The address's own organization may delete it, and so may the backend
// with the project secret alone.
func TestDeletePasswordNeedsTheAddressVerifiedInTheOrganization(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		corp := e.CreateOrg("corp", "NOT_ALLOWED", nil)
		victimID := e.CreateVerifiedMember(corp, "victim@corp.test")
		e.SetPassword(corp, "victim@corp.test", apptest.StrongPassword)
		pwID := e.PasswordID(corp, victimID)

		evil := e.CreateOrg("evil", "NOT_ALLOWED", nil)
		e.CreateAdmin(evil, "boss@evil.test")
		boss := e.SessionFor(evil, "boss@evil.test")
		r := e.SDK(http.MethodPost, "/b2b/organizations/members", map[string]any{"email_address": "victim@corp.test"}, boss)
		if r.Status != 200 {
			t.Fatalf("create the look-alike member: %s", r.Raw)
		}
		fake, _ := r.Data()["member"].(map[string]any)
		if fake["email_address_verified"] != false {
			t.Fatalf("the look-alike member: %v", fake)
		}

		apptest.Want(t, e.SDK(http.MethodDelete, "/b2b/organizations/members/passwords/"+pwID, nil, boss), 403, "unauthorized_action")
		apptest.Want(t, e.Do(http.MethodDelete, "/v1/b2b/organizations/"+evil+"/members/passwords/"+pwID, nil,
			http.Header{"X-Stytch-Member-Session": {boss}}, e.Project.Project.ID, e.Project.Secret), 403, "unauthorized_action")
		if r := e.PasswordLogin(corp, "victim@corp.test", apptest.StrongPassword); r.Status != 200 {
			t.Fatalf("the victim's password login after the refused deletions: %s", r.Raw)
		}

		// The address's own organization: an admin there may.
		e.CreateAdmin(corp, "admin@corp.test")
		admin := e.SessionFor(corp, "admin@corp.test")
		if r := e.SDK(http.MethodDelete, "/b2b/organizations/members/passwords/"+pwID, nil, admin); r.Status != 200 ||
			e.PasswordID(corp, victimID) != "" {
			t.Fatalf("deletion by the victim's own organization: %s", r.Raw)
		}
		apptest.Want(t, e.PasswordLogin(corp, "victim@corp.test", apptest.StrongPassword), 401, "unauthorized_credentials")

		// The project secret alone keeps full power, through any membership.
		e.SetPassword(corp, "victim@corp.test", apptest.StrongPassword)
		pwID = e.PasswordID(corp, victimID)
		if r := e.Backend(http.MethodDelete, "/v1/b2b/organizations/"+evil+"/members/passwords/"+pwID, nil); r.Status != 200 {
			t.Fatalf("deletion with the project secret: %s", r.Raw)
		}
		if e.PasswordID(corp, victimID) != "" {
			t.Fatal("the project secret's deletion left the password")
		}
	})
}
