package password_test

import (
	"net/http"
	"testing"

	"github.com/latchkey/latchkey/internal/apptest"
)

// The attacker's password, which must never open the victim's account.
const attackerPassword = "Old-Mule-Password-77x"

// victimAndMule sets up the reviewer's second forgery: a victim member in
// another organization, and in the attacker's organization (its admin's
// session is returned) a member "mule" with a password the attacker knows.
func victimAndMule(t *testing.T, e *apptest.Env) (victimOrg, evil, admin, mule string) {
	t.Helper()
	victimOrg = e.CreateOrg("victimco", "NOT_ALLOWED", nil)
	e.CreateMember(victimOrg, "ceo@victim.test")
	evil, admin, mule = e.AdminWithMule()
	e.SetPassword(evil, "mule@evil.test", attackerPassword)
	return victimOrg, evil, admin, mule
}

// A password session of a member whose address an admin then points at
// someone else's must not set that address's project-wide password
// (session/reset): the admin's change ends the member's sessions.
func TestAdminAddressChangeEndsPasswordSession(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		victimOrg, evil, admin, mule := victimAndMule(t, e)
		r := e.PasswordLogin(evil, "mule@evil.test", attackerPassword)
		apptest.Want(t, r, 200, "")
		muleSession := r.Data()["session_token"].(string)

		apptest.Want(t, e.SDK(http.MethodPut, "/b2b/organizations/members/"+mule, map[string]any{"email_address": "ceo@victim.test"}, admin), 200, "")

		apptest.Want(t, e.SDK(http.MethodPost, "/b2b/passwords/session/reset", map[string]any{"password": apptest.StrongPassword}, muleSession),
			404, "session_not_found")
		apptest.Want(t, e.SDK(http.MethodPost, "/b2b/discovery/organizations", map[string]any{}, muleSession), 404, "session_not_found")
		apptest.Want(t, e.PasswordLogin(victimOrg, "ceo@victim.test", apptest.StrongPassword), 401, "unauthorized_credentials")
	})
}

// The same through a login in progress: the mule's password login stops
// at MFA with an IST carrying the password factor; the backend then
// changes the mule's address. Completing MFA with that IST would give a
// fresh session with a password factor for the victim's address, so the
// change spends the member's ISTs as well.
func TestAdminAddressChangeEndsLoginInProgress(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		victimOrg, evil, _, mule := victimAndMule(t, e)
		e.SetMFA(evil, "REQUIRED_FOR_ALL")
		r := e.Backend(http.MethodPost, "/v1/b2b/totp", map[string]any{"organization_id": evil, "member_id": mule})
		apptest.Want(t, r, 200, "")
		secret := r.Body["secret"].(string)
		r = e.PasswordLogin(evil, "mule@evil.test", attackerPassword)
		ist, _ := r.Data()["intermediate_session_token"].(string)
		if r.Status != 200 || ist == "" || r.Data()["member_authenticated"] != false {
			t.Fatalf("password login did not stop at MFA: %s", r.Raw)
		}

		apptest.Want(t, e.Backend(http.MethodPut, "/v1/b2b/organizations/"+evil+"/members/"+mule,
			map[string]any{"email_address": "ceo@victim.test"}), 200, "")

		r = e.SDK(http.MethodPost, "/b2b/totp/authenticate", map[string]any{"organization_id": evil, "member_id": mule,
			"intermediate_session_token": ist, "code": apptest.TOTPAt(t, secret, e.Clock.Now()), "session_duration_minutes": 60}, "")
		apptest.Want(t, r, 404, "intermediate_session_not_found")
		apptest.Want(t, e.PasswordLogin(victimOrg, "ceo@victim.test", apptest.StrongPassword), 401, "unauthorized_credentials")
	})
}
