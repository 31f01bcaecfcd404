package app_test

import (
	"net/http"
	"testing"

	"github.com/latchkey/latchkey/internal/apptest"
)

// passwordID returns a member's member_password_id as the backend sees it.
func passwordID(e *apptest.Env, org, memberID string) string {
	e.T.Helper()
	id, _ := memberByID(e, org, memberID)["member_password_id"].(string)
	return id
}

// Password deletion: a member deletes their own, an admin that of a member
// of the same organization; nobody reaches another organization's
// passwords; the backend deletes through the organization in the path.
func TestDeleteMemberPassword(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		f := newMeFixture(t, e)
		for _, email := range []string{"ada@acme.test", "bob@acme.test", "cy@beta.test"} {
			org := f.acme
			if email == "cy@beta.test" {
				org = f.beta
			}
			setPassword(e, org, email, strongPassword)
		}
		del := func(session, id string) apptest.Resp {
			return sdkAs(e, http.MethodDelete, "/b2b/organizations/members/passwords/"+id, nil, session)
		}
		adaPW, bobPW, cyPW := passwordID(e, f.acme, f.adminID), passwordID(e, f.acme, f.plainID), passwordID(e, f.beta, f.betaID)
		if adaPW == "" || bobPW == "" || cyPW == "" {
			t.Fatalf("passwords not set: %q %q %q", adaPW, bobPW, cyPW)
		}

		apptest.Want(t, del("", bobPW), 401, "user_unauthenticated")
		apptest.Want(t, del(f.plain, adaPW), 403, "unauthorized_action")
		apptest.Want(t, del(f.admin, cyPW), 404, "member_password_not_found")
		apptest.Want(t, del(f.plain, "member-password-test-nope"), 404, "member_password_not_found")
		if passwordID(e, f.acme, f.adminID) != adaPW || passwordID(e, f.beta, f.betaID) != cyPW {
			t.Fatal("a refused deletion removed a password")
		}

		// Self.
		r := del(f.plain, bobPW)
		if r.Status != 200 || r.Data()["member_id"] != f.plainID || member(r.Data())["member_password_id"] != "" ||
			r.Data()["organization"].(map[string]any)["organization_id"] != f.acme {
			t.Fatalf("self delete: %s", r.Raw)
		}
		apptest.Want(t, pwLogin(e, f.acme, "bob@acme.test", strongPassword), 401, "unauthorized_credentials")
		apptest.Want(t, del(f.plain, bobPW), 404, "member_password_not_found")

		// An admin, for another member.
		setPassword(e, f.acme, "bob@acme.test", strongPassword)
		bobPW = passwordID(e, f.acme, f.plainID)
		if r := del(f.admin, bobPW); r.Status != 200 || r.Data()["member_id"] != f.plainID || member(r.Data())["member_password_id"] != "" {
			t.Fatalf("admin delete: %s", r.Raw)
		}
		if r := pwLogin(e, f.acme, "ada@acme.test", strongPassword); r.Status != 200 {
			t.Fatalf("the admin's own password went too: %s", r.Raw)
		}

		// Backend, through the organization in the path only.
		apptest.Want(t, e.Backend(http.MethodDelete, "/v1/b2b/organizations/"+f.acme+"/members/passwords/"+cyPW, nil), 404, "member_password_not_found")
		r = e.Backend(http.MethodDelete, "/v1/b2b/organizations/"+f.beta+"/members/passwords/"+cyPW, nil)
		if r.Status != 200 || r.Body["member_id"] != f.betaID || r.Body["member"].(map[string]any)["member_password_id"] != "" {
			t.Fatalf("backend delete: %s", r.Raw)
		}
		apptest.Want(t, pwLogin(e, f.beta, "cy@beta.test", strongPassword), 401, "unauthorized_credentials")
		apptest.Want(t, e.Backend(http.MethodDelete, "/v1/b2b/organizations/organization-test-nope/members/passwords/"+adaPW, nil),
			404, "organization_not_found")
	})
}

// The admin SDK routes for MFA factors: an admin removes another member's
// phone or authenticator app, a member their own; a plain member cannot
// touch others, and nobody reaches another organization.
func TestSDKDeleteMemberMFA(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		f := newMeFixture(t, e)
		alignClock(e)
		const phone = "+14155552671"
		bob := sessionSMS(e, f.acme, f.plainID, f.plain, phone, nil)
		_, bob = sessionTOTP(e, f.acme, f.plainID, bob, nil)
		_, ada := sessionTOTP(e, f.acme, f.adminID, f.admin, nil)
		m := memberByID(e, f.acme, f.plainID)
		if m["mfa_phone_number"] != phone || m["totp_registration_id"] == "" {
			t.Fatalf("bob's factors not enrolled: %v", m)
		}
		phonePath := func(id string) string { return "/b2b/organizations/members/mfa_phone_numbers/" + id }
		totpPath := func(id string) string { return "/b2b/organizations/members/totp/" + id }

		for _, p := range []string{phonePath(f.plainID), totpPath(f.plainID)} {
			apptest.Want(t, sdkAs(e, http.MethodDelete, p, nil, ""), 401, "user_unauthenticated")
			apptest.Want(t, sdkAs(e, http.MethodDelete, p, nil, f.betaSession), 404, "member_not_found")
		}
		apptest.Want(t, sdkAs(e, http.MethodDelete, totpPath(f.adminID), nil, bob), 403, "unauthorized_action")
		apptest.Want(t, sdkAs(e, http.MethodDelete, phonePath(f.adminID), nil, bob), 403, "unauthorized_action")
		if m := memberByID(e, f.acme, f.adminID); m["totp_registration_id"] == "" {
			t.Fatalf("a refused call removed the admin's TOTP: %v", m)
		}
		if m := memberByID(e, f.acme, f.plainID); m["mfa_phone_number"] != phone || m["totp_registration_id"] == "" {
			t.Fatalf("a refused call removed bob's factors: %v", m)
		}

		// The admin removes bob's phone, then his authenticator app.
		r := sdkAs(e, http.MethodDelete, phonePath(f.plainID), nil, ada)
		if r.Status != 200 || r.Data()["member_id"] != f.plainID || member(r.Data())["mfa_phone_number"] != "" ||
			member(r.Data())["totp_registration_id"] == "" || r.Data()["organization"] == nil {
			t.Fatalf("admin phone delete: %s", r.Raw)
		}
		r = sdkAs(e, http.MethodDelete, totpPath(f.plainID), nil, ada)
		if r.Status != 200 || member(r.Data())["totp_registration_id"] != "" {
			t.Fatalf("admin totp delete: %s", r.Raw)
		}
		// A member removes their own through the same route.
		r = sdkAs(e, http.MethodDelete, totpPath(f.adminID), nil, ada)
		if r.Status != 200 || r.Data()["member_id"] != f.adminID || member(r.Data())["totp_registration_id"] != "" {
			t.Fatalf("self totp delete: %s", r.Raw)
		}
		// The backend's shared DELETE pattern still reaches the MFA factors.
		sessionSMS(e, f.acme, f.plainID, bob, phone, nil)
		r = e.Backend(http.MethodDelete, "/v1/b2b/organizations/"+f.acme+"/members/mfa_phone_numbers/"+f.plainID, nil)
		if r.Status != 200 || r.Body["member"].(map[string]any)["mfa_phone_number"] != "" {
			t.Fatalf("backend phone delete: %s", r.Raw)
		}
		apptest.Want(t, e.Backend(http.MethodDelete, "/v1/b2b/organizations/"+f.acme+"/members/"+f.plainID+"/nothing", nil), 404, "route_not_found")
	})
}

// A member deleted after a login email was sent cannot finish that login:
// the code and the link mailed before the deletion are refused
// inactive_member, and no session is created for the deleted member.
func TestDeletedMemberCannotFinishEmailLogin(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		org := e.CreateOrg("acme", "NOT_ALLOWED", nil)
		mid := e.CreateMember(org, "ada@acme.test")
		if r := sendCode(e, org, "ada@acme.test"); r.Status != 200 {
			t.Fatalf("send code: %s", r.Raw)
		}
		_, codes := e.LastMail("ada@acme.test")
		if r := sendLink(e, org, "ada@acme.test", nil); r.Status != 200 {
			t.Fatalf("send link: %s", r.Raw)
		}
		links, _ := e.LastMail("ada@acme.test")
		deleteMember(e, org, mid)

		apptest.Want(t, checkCode(e, org, "ada@acme.test", codes[0]), 403, "inactive_member")
		apptest.Want(t, redeem(e, tokenFrom(t, e, links[0]), nil), 403, "inactive_member")
		if n := countRows(e, `SELECT COUNT(*) FROM member_sessions WHERE member_id = $1`, mid); n != 0 {
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
		f := newMeFixture(t, e)
		setPassword(e, f.acme, "ada@acme.test", strongPassword)
		setPassword(e, f.acme, "bob@acme.test", strongPassword)
		adaPW, bobPW := passwordID(e, f.acme, f.adminID), passwordID(e, f.acme, f.plainID)
		del := func(id, session string) apptest.Resp {
			return e.Do(http.MethodDelete, "/v1/b2b/organizations/"+f.acme+"/members/passwords/"+id, nil,
				http.Header{"X-Stytch-Member-Session": {session}}, e.Project.Project.ID, e.Project.Secret)
		}
		apptest.Want(t, del(adaPW, f.plain), 403, "unauthorized_action")
		if passwordID(e, f.acme, f.adminID) != adaPW {
			t.Fatal("a refused deletion removed the administrator's password")
		}
		if r := pwLogin(e, f.acme, "ada@acme.test", strongPassword); r.Status != 200 {
			t.Fatalf("administrator's password after a refused deletion: %s", r.Raw)
		}
		if r := del(bobPW, f.plain); r.Status != 200 || passwordID(e, f.acme, f.plainID) != "" {
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
		setPassword(e, org, "ada@acme.test", strongPassword)
		deleteMember(e, org, mid)
		apptest.Want(t, pwLogin(e, org, "ada@acme.test", strongPassword), 401, "unauthorized_credentials")
		if r := e.Backend(http.MethodPut, "/v1/b2b/organizations/"+org+"/members/"+mid+"/reactivate", nil); r.Status != 200 {
			t.Fatalf("reactivate member: %s", r.Raw)
		}
		if r := pwLogin(e, org, "ada@acme.test", strongPassword); r.Status != 200 {
			t.Fatalf("password after reactivation: %s", r.Raw)
		}
	})
}
