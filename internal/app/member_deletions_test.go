package app_test

import (
	"net/http"
	"testing"

	"github.com/latchkey/latchkey/internal/apptest"
)

// Password deletion: a member deletes their own, an admin that of a member
// of the same organization; nobody reaches another organization's
// passwords; the backend deletes through the organization in the path.
func TestDeleteMemberPassword(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		f := e.NewMeFixture()
		for _, email := range []string{"ada@acme.test", "bob@acme.test", "cy@beta.test"} {
			org := f.Acme
			if email == "cy@beta.test" {
				org = f.Beta
			}
			e.SetPassword(org, email, apptest.StrongPassword)
		}
		del := func(session, id string) apptest.Resp {
			return e.SDK(http.MethodDelete, "/b2b/organizations/members/passwords/"+id, nil, session)
		}
		adaPW, bobPW, cyPW := e.PasswordID(f.Acme, f.AdminID), e.PasswordID(f.Acme, f.PlainID), e.PasswordID(f.Beta, f.BetaID)
		if adaPW == "" || bobPW == "" || cyPW == "" {
			t.Fatalf("passwords not set: %q %q %q", adaPW, bobPW, cyPW)
		}

		apptest.Want(t, del("", bobPW), 401, "user_unauthenticated")
		apptest.Want(t, del(f.Plain, adaPW), 403, "unauthorized_action")
		apptest.Want(t, del(f.Admin, cyPW), 404, "member_password_not_found")
		apptest.Want(t, del(f.Plain, "member-password-test-nope"), 404, "member_password_not_found")
		if e.PasswordID(f.Acme, f.AdminID) != adaPW || e.PasswordID(f.Beta, f.BetaID) != cyPW {
			t.Fatal("a refused deletion removed a password")
		}

		// Self.
		r := del(f.Plain, bobPW)
		if r.Status != 200 || r.Data()["member_id"] != f.PlainID || apptest.MemberOf(r.Data())["member_password_id"] != "" ||
			r.Data()["organization"].(map[string]any)["organization_id"] != f.Acme {
			t.Fatalf("self delete: %s", r.Raw)
		}
		apptest.Want(t, e.PasswordLogin(f.Acme, "bob@acme.test", apptest.StrongPassword), 401, "unauthorized_credentials")
		apptest.Want(t, del(f.Plain, bobPW), 404, "member_password_not_found")

		// An admin, for another member.
		e.SetPassword(f.Acme, "bob@acme.test", apptest.StrongPassword)
		bobPW = e.PasswordID(f.Acme, f.PlainID)
		if r := del(f.Admin, bobPW); r.Status != 200 || r.Data()["member_id"] != f.PlainID || apptest.MemberOf(r.Data())["member_password_id"] != "" {
			t.Fatalf("admin delete: %s", r.Raw)
		}
		if r := e.PasswordLogin(f.Acme, "ada@acme.test", apptest.StrongPassword); r.Status != 200 {
			t.Fatalf("the admin's own password went too: %s", r.Raw)
		}

		// Backend, through the organization in the path only.
		apptest.Want(t, e.Backend(http.MethodDelete, "/v1/b2b/organizations/"+f.Acme+"/members/passwords/"+cyPW, nil), 404, "member_password_not_found")
		r = e.Backend(http.MethodDelete, "/v1/b2b/organizations/"+f.Beta+"/members/passwords/"+cyPW, nil)
		if r.Status != 200 || r.Body["member_id"] != f.BetaID || r.Body["member"].(map[string]any)["member_password_id"] != "" {
			t.Fatalf("backend delete: %s", r.Raw)
		}
		apptest.Want(t, e.PasswordLogin(f.Beta, "cy@beta.test", apptest.StrongPassword), 401, "unauthorized_credentials")
		apptest.Want(t, e.Backend(http.MethodDelete, "/v1/b2b/organizations/organization-test-nope/members/passwords/"+adaPW, nil),
			404, "organization_not_found")
	})
}

// The admin SDK routes for MFA factors: an admin removes another member's
// phone or authenticator app, a member their own; a plain member cannot
// touch others, and nobody reaches another organization.
func TestSDKDeleteMemberMFA(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		f := e.NewMeFixture()
		e.AlignClock()
		const phone = "+14155552671"
		bob := e.SessionSMS(f.Acme, f.PlainID, f.Plain, phone, nil)
		_, bob = e.SessionTOTP(f.Acme, f.PlainID, bob, nil)
		_, ada := e.SessionTOTP(f.Acme, f.AdminID, f.Admin, nil)
		m := e.MemberByID(f.Acme, f.PlainID)
		if m["mfa_phone_number"] != phone || m["totp_registration_id"] == "" {
			t.Fatalf("bob's factors not enrolled: %v", m)
		}
		phonePath := func(id string) string { return "/b2b/organizations/members/mfa_phone_numbers/" + id }
		totpPath := func(id string) string { return "/b2b/organizations/members/totp/" + id }

		for _, p := range []string{phonePath(f.PlainID), totpPath(f.PlainID)} {
			apptest.Want(t, e.SDK(http.MethodDelete, p, nil, ""), 401, "user_unauthenticated")
			apptest.Want(t, e.SDK(http.MethodDelete, p, nil, f.BetaSession), 404, "member_not_found")
		}
		apptest.Want(t, e.SDK(http.MethodDelete, totpPath(f.AdminID), nil, bob), 403, "unauthorized_action")
		apptest.Want(t, e.SDK(http.MethodDelete, phonePath(f.AdminID), nil, bob), 403, "unauthorized_action")
		if m := e.MemberByID(f.Acme, f.AdminID); m["totp_registration_id"] == "" {
			t.Fatalf("a refused call removed the admin's TOTP: %v", m)
		}
		if m := e.MemberByID(f.Acme, f.PlainID); m["mfa_phone_number"] != phone || m["totp_registration_id"] == "" {
			t.Fatalf("a refused call removed bob's factors: %v", m)
		}

		// The admin removes bob's phone, then his authenticator app.
		r := e.SDK(http.MethodDelete, phonePath(f.PlainID), nil, ada)
		if r.Status != 200 || r.Data()["member_id"] != f.PlainID || apptest.MemberOf(r.Data())["mfa_phone_number"] != "" ||
			apptest.MemberOf(r.Data())["totp_registration_id"] == "" || r.Data()["organization"] == nil {
			t.Fatalf("admin phone delete: %s", r.Raw)
		}
		r = e.SDK(http.MethodDelete, totpPath(f.PlainID), nil, ada)
		if r.Status != 200 || apptest.MemberOf(r.Data())["totp_registration_id"] != "" {
			t.Fatalf("admin totp delete: %s", r.Raw)
		}
		// A member removes their own through the same route.
		r = e.SDK(http.MethodDelete, totpPath(f.AdminID), nil, ada)
		if r.Status != 200 || r.Data()["member_id"] != f.AdminID || apptest.MemberOf(r.Data())["totp_registration_id"] != "" {
			t.Fatalf("self totp delete: %s", r.Raw)
		}
		// The backend's shared DELETE pattern still reaches the MFA factors.
		e.SessionSMS(f.Acme, f.PlainID, bob, phone, nil)
		r = e.Backend(http.MethodDelete, "/v1/b2b/organizations/"+f.Acme+"/members/mfa_phone_numbers/"+f.PlainID, nil)
		if r.Status != 200 || r.Body["member"].(map[string]any)["mfa_phone_number"] != "" {
			t.Fatalf("backend phone delete: %s", r.Raw)
		}
		apptest.Want(t, e.Backend(http.MethodDelete, "/v1/b2b/organizations/"+f.Acme+"/members/"+f.PlainID+"/nothing", nil), 404, "route_not_found")
	})
}

// A member deleted after a login email was sent cannot finish that login:
// the code and the link mailed before the deletion are refused
// inactive_member, and no session is created for the deleted member.
func TestDeletedMemberCannotFinishEmailLogin(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		org := e.CreateOrg("acme", "NOT_ALLOWED", nil)
		mid := e.CreateMember(org, "ada@acme.test")
		if r := e.SendCode(org, "ada@acme.test"); r.Status != 200 {
			t.Fatalf("send code: %s", r.Raw)
		}
		_, codes := e.LastMail("ada@acme.test")
		if r := e.SendLink(org, "ada@acme.test", nil); r.Status != 200 {
			t.Fatalf("send link: %s", r.Raw)
		}
		links, _ := e.LastMail("ada@acme.test")
		e.DeleteMember(org, mid)

		apptest.Want(t, e.CheckCode(org, "ada@acme.test", codes[0]), 403, "inactive_member")
		apptest.Want(t, e.RedeemLink(apptest.MagicLinkToken(t, links[0]), nil), 403, "inactive_member")
		if n := e.Count(`SELECT COUNT(*) FROM member_sessions WHERE member_id = $1`, mid); n != 0 {
			t.Fatalf("%d sessions for the deleted member", n)
		}
	})
}

// The backend password deletion, called for a member session (the
// X-Stytch-Member-Session header), is authorized by that member's roles:
// a plain member cannot delete an administrator's password through it,
// while their own goes.
func TestBackendDeletePasswordForAMemberSession(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		f := e.NewMeFixture()
		e.SetPassword(f.Acme, "ada@acme.test", apptest.StrongPassword)
		e.SetPassword(f.Acme, "bob@acme.test", apptest.StrongPassword)
		adaPW, bobPW := e.PasswordID(f.Acme, f.AdminID), e.PasswordID(f.Acme, f.PlainID)
		del := func(id, session string) apptest.Resp {
			return e.Do(http.MethodDelete, "/v1/b2b/organizations/"+f.Acme+"/members/passwords/"+id, nil,
				http.Header{"X-Stytch-Member-Session": {session}}, e.Project.Project.ID, e.Project.Secret)
		}
		apptest.Want(t, del(adaPW, f.Plain), 403, "unauthorized_action")
		if e.PasswordID(f.Acme, f.AdminID) != adaPW {
			t.Fatal("a refused deletion removed the administrator's password")
		}
		if r := e.PasswordLogin(f.Acme, "ada@acme.test", apptest.StrongPassword); r.Status != 200 {
			t.Fatalf("administrator's password after a refused deletion: %s", r.Raw)
		}
		if r := del(bobPW, f.Plain); r.Status != 200 || e.PasswordID(f.Acme, f.PlainID) != "" {
			t.Fatalf("own password through the backend: %s", r.Raw)
		}
	})
}

// A deleted member's password no longer logs in: the answer is that of a
// wrong password (no hint that the member exists), until an administrator
// reactivates the member.
func TestDeletedMemberCannotLogInWithPassword(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		org := e.CreateOrg("acme", "NOT_ALLOWED", nil)
		mid := e.CreateMember(org, "ada@acme.test")
		e.SetPassword(org, "ada@acme.test", apptest.StrongPassword)
		e.DeleteMember(org, mid)
		apptest.Want(t, e.PasswordLogin(org, "ada@acme.test", apptest.StrongPassword), 401, "unauthorized_credentials")
		if r := e.Backend(http.MethodPut, "/v1/b2b/organizations/"+org+"/members/"+mid+"/reactivate", nil); r.Status != 200 {
			t.Fatalf("reactivate member: %s", r.Raw)
		}
		if r := e.PasswordLogin(org, "ada@acme.test", apptest.StrongPassword); r.Status != 200 {
			t.Fatalf("password after reactivation: %s", r.Raw)
		}
	})
}
