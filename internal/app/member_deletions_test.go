package app_test

import (
	"net/http"
	"testing"
)

// passwordID returns a member's member_password_id as the backend sees it.
func (e *env) passwordID(org, memberID string) string {
	e.t.Helper()
	id, _ := e.member(org, memberID)["member_password_id"].(string)
	return id
}

// Password deletion: a member deletes their own, an admin that of a member
// of the same organization; nobody reaches another organization's
// passwords; the backend deletes through the organization in the path.
func TestDeleteMemberPassword(t *testing.T) {
	eachEnv(t, func(t *testing.T, e *env) {
		f := newMeFixture(t, e)
		for _, email := range []string{"ada@acme.test", "bob@acme.test", "cy@beta.test"} {
			org := f.acme
			if email == "cy@beta.test" {
				org = f.beta
			}
			e.setPassword(org, email, strongPassword)
		}
		del := func(session, id string) resp {
			return e.sdkAs(http.MethodDelete, "/b2b/organizations/members/passwords/"+id, nil, session)
		}
		adaPW, bobPW, cyPW := e.passwordID(f.acme, f.adminID), e.passwordID(f.acme, f.plainID), e.passwordID(f.beta, f.betaID)
		if adaPW == "" || bobPW == "" || cyPW == "" {
			t.Fatalf("passwords not set: %q %q %q", adaPW, bobPW, cyPW)
		}

		want(t, del("", bobPW), 401, "user_unauthenticated")
		want(t, del(f.plain, adaPW), 403, "unauthorized_action")
		want(t, del(f.admin, cyPW), 404, "member_password_not_found")
		want(t, del(f.plain, "member-password-test-nope"), 404, "member_password_not_found")
		if e.passwordID(f.acme, f.adminID) != adaPW || e.passwordID(f.beta, f.betaID) != cyPW {
			t.Fatal("a refused deletion removed a password")
		}

		// Self.
		r := del(f.plain, bobPW)
		if r.Status != 200 || r.data()["member_id"] != f.plainID || member(r.data())["member_password_id"] != "" ||
			r.data()["organization"].(map[string]any)["organization_id"] != f.acme {
			t.Fatalf("self delete: %s", r.Raw)
		}
		want(t, e.pwLogin(f.acme, "bob@acme.test", strongPassword), 401, "unauthorized_credentials")
		want(t, del(f.plain, bobPW), 404, "member_password_not_found")

		// An admin, for another member.
		e.setPassword(f.acme, "bob@acme.test", strongPassword)
		bobPW = e.passwordID(f.acme, f.plainID)
		if r := del(f.admin, bobPW); r.Status != 200 || r.data()["member_id"] != f.plainID || member(r.data())["member_password_id"] != "" {
			t.Fatalf("admin delete: %s", r.Raw)
		}
		if r := e.pwLogin(f.acme, "ada@acme.test", strongPassword); r.Status != 200 {
			t.Fatalf("the admin's own password went too: %s", r.Raw)
		}

		// Backend, through the organization in the path only.
		want(t, e.backend(http.MethodDelete, "/v1/b2b/organizations/"+f.acme+"/members/passwords/"+cyPW, nil), 404, "member_password_not_found")
		r = e.backend(http.MethodDelete, "/v1/b2b/organizations/"+f.beta+"/members/passwords/"+cyPW, nil)
		if r.Status != 200 || r.Body["member_id"] != f.betaID || r.Body["member"].(map[string]any)["member_password_id"] != "" {
			t.Fatalf("backend delete: %s", r.Raw)
		}
		want(t, e.pwLogin(f.beta, "cy@beta.test", strongPassword), 401, "unauthorized_credentials")
		want(t, e.backend(http.MethodDelete, "/v1/b2b/organizations/organization-test-nope/members/passwords/"+adaPW, nil),
			404, "organization_not_found")
	})
}

// The admin SDK routes for MFA factors: an admin removes another member's
// phone or authenticator app, a member their own; a plain member cannot
// touch others, and nobody reaches another organization.
func TestSDKDeleteMemberMFA(t *testing.T) {
	eachEnv(t, func(t *testing.T, e *env) {
		f := newMeFixture(t, e)
		e.alignClock()
		const phone = "+14155552671"
		bob := e.sessionSMS(f.acme, f.plainID, f.plain, phone, nil)
		_, bob = e.sessionTOTP(f.acme, f.plainID, bob, nil)
		_, ada := e.sessionTOTP(f.acme, f.adminID, f.admin, nil)
		m := e.member(f.acme, f.plainID)
		if m["mfa_phone_number"] != phone || m["totp_registration_id"] == "" {
			t.Fatalf("bob's factors not enrolled: %v", m)
		}
		phonePath := func(id string) string { return "/b2b/organizations/members/mfa_phone_numbers/" + id }
		totpPath := func(id string) string { return "/b2b/organizations/members/totp/" + id }

		for _, p := range []string{phonePath(f.plainID), totpPath(f.plainID)} {
			want(t, e.sdkAs(http.MethodDelete, p, nil, ""), 401, "user_unauthenticated")
			want(t, e.sdkAs(http.MethodDelete, p, nil, f.betaSession), 404, "member_not_found")
		}
		want(t, e.sdkAs(http.MethodDelete, totpPath(f.adminID), nil, bob), 403, "unauthorized_action")
		want(t, e.sdkAs(http.MethodDelete, phonePath(f.adminID), nil, bob), 403, "unauthorized_action")
		if m := e.member(f.acme, f.adminID); m["totp_registration_id"] == "" {
			t.Fatalf("a refused call removed the admin's TOTP: %v", m)
		}
		if m := e.member(f.acme, f.plainID); m["mfa_phone_number"] != phone || m["totp_registration_id"] == "" {
			t.Fatalf("a refused call removed bob's factors: %v", m)
		}

		// The admin removes bob's phone, then his authenticator app.
		r := e.sdkAs(http.MethodDelete, phonePath(f.plainID), nil, ada)
		if r.Status != 200 || r.data()["member_id"] != f.plainID || member(r.data())["mfa_phone_number"] != "" ||
			member(r.data())["totp_registration_id"] == "" || r.data()["organization"] == nil {
			t.Fatalf("admin phone delete: %s", r.Raw)
		}
		r = e.sdkAs(http.MethodDelete, totpPath(f.plainID), nil, ada)
		if r.Status != 200 || member(r.data())["totp_registration_id"] != "" {
			t.Fatalf("admin totp delete: %s", r.Raw)
		}
		// A member removes their own through the same route.
		r = e.sdkAs(http.MethodDelete, totpPath(f.adminID), nil, ada)
		if r.Status != 200 || r.data()["member_id"] != f.adminID || member(r.data())["totp_registration_id"] != "" {
			t.Fatalf("self totp delete: %s", r.Raw)
		}
		// The backend's shared DELETE pattern still reaches the MFA factors.
		e.sessionSMS(f.acme, f.plainID, bob, phone, nil)
		r = e.backend(http.MethodDelete, "/v1/b2b/organizations/"+f.acme+"/members/mfa_phone_numbers/"+f.plainID, nil)
		if r.Status != 200 || r.Body["member"].(map[string]any)["mfa_phone_number"] != "" {
			t.Fatalf("backend phone delete: %s", r.Raw)
		}
		want(t, e.backend(http.MethodDelete, "/v1/b2b/organizations/"+f.acme+"/members/"+f.plainID+"/nothing", nil), 404, "route_not_found")
	})
}

// A member deleted after a login email was sent cannot finish that login:
// the code and the link mailed before the deletion are refused
// inactive_member, and no session is created for the deleted member.
func TestDeletedMemberCannotFinishEmailLogin(t *testing.T) {
	eachEnv(t, func(t *testing.T, e *env) {
		org := e.createOrg("acme", "NOT_ALLOWED")
		mid := e.createMember(org, "ada@acme.test")
		if r := e.sendCode(org, "ada@acme.test"); r.Status != 200 {
			t.Fatalf("send code: %s", r.Raw)
		}
		_, codes := e.lastMail("ada@acme.test")
		if r := e.sendLink(org, "ada@acme.test", nil); r.Status != 200 {
			t.Fatalf("send link: %s", r.Raw)
		}
		links, _ := e.lastMail("ada@acme.test")
		e.deleteMember(org, mid)

		want(t, e.checkCode(org, "ada@acme.test", codes[0]), 403, "inactive_member")
		want(t, e.redeem(tokenFrom(t, e, links[0]), nil), 403, "inactive_member")
		if n := e.count(`SELECT COUNT(*) FROM member_sessions WHERE member_id = $1`, mid); n != 0 {
			t.Fatalf("%d sessions for the deleted member", n)
		}
	})
}

// The backend password deletion, called for a member session (the
// X-Stytch-Member-Session header), is authorized by that member's roles:
// a plain member cannot delete an administrator's password through it,
// while their own goes.
func TestBackendDeletePasswordForAMemberSession(t *testing.T) {
	eachEnv(t, func(t *testing.T, e *env) {
		f := newMeFixture(t, e)
		e.setPassword(f.acme, "ada@acme.test", strongPassword)
		e.setPassword(f.acme, "bob@acme.test", strongPassword)
		adaPW, bobPW := e.passwordID(f.acme, f.adminID), e.passwordID(f.acme, f.plainID)
		del := func(id, session string) resp {
			return e.do(http.MethodDelete, "/v1/b2b/organizations/"+f.acme+"/members/passwords/"+id, nil,
				http.Header{"X-Stytch-Member-Session": {session}}, e.proj.Project.ID, e.proj.Secret)
		}
		want(t, del(adaPW, f.plain), 403, "unauthorized_action")
		if e.passwordID(f.acme, f.adminID) != adaPW {
			t.Fatal("a refused deletion removed the administrator's password")
		}
		if r := e.pwLogin(f.acme, "ada@acme.test", strongPassword); r.Status != 200 {
			t.Fatalf("administrator's password after a refused deletion: %s", r.Raw)
		}
		if r := del(bobPW, f.plain); r.Status != 200 || e.passwordID(f.acme, f.plainID) != "" {
			t.Fatalf("own password through the backend: %s", r.Raw)
		}
	})
}

// A deleted member's password no longer logs in: the answer is that of a
// wrong password (no hint that the member exists), until an administrator
// reactivates the member.
func TestDeletedMemberCannotLogInWithPassword(t *testing.T) {
	eachEnv(t, func(t *testing.T, e *env) {
		org := e.createOrg("acme", "NOT_ALLOWED")
		mid := e.createMember(org, "ada@acme.test")
		e.setPassword(org, "ada@acme.test", strongPassword)
		e.deleteMember(org, mid)
		want(t, e.pwLogin(org, "ada@acme.test", strongPassword), 401, "unauthorized_credentials")
		if r := e.backend(http.MethodPut, "/v1/b2b/organizations/"+org+"/members/"+mid+"/reactivate", nil); r.Status != 200 {
			t.Fatalf("reactivate member: %s", r.Raw)
		}
		if r := e.pwLogin(org, "ada@acme.test", strongPassword); r.Status != 200 {
			t.Fatalf("password after reactivation: %s", r.Raw)
		}
	})
}
