package sso_test

import (
	"net/http"
	"testing"

	"golang.org/x/crypto/bcrypt"

	"github.com/latchkey/latchkey/internal/apptest"
)

// Taking an explicit role away from a member who also holds it through a
// SAML group ends the member's sessions from that connection (the API
// family's member update rule: they would keep the role through the
// connection), unless the update says preserve_existing_sessions. The
// member's other sessions live on and lose the role at their next check;
// a removal no connection backs ends nothing.
func TestRoleRemovalEndsTheConnectionsSessions(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		s := newAdminsGroupEnv(t, e)
		r := s.loginWithGroups("ada@acme.test", "okta-ada", "admins")
		samlToken, mid := r.Body["session_token"].(string), r.Body["member_id"].(string)
		emailToken, _ := e.LoginByEmailOTP(s.orgID, "ada@acme.test")
		path := "/v1/b2b/organizations/" + s.orgID + "/members/" + mid
		setRoles := func(extra map[string]any, roles ...string) {
			t.Helper()
			body := map[string]any{"roles": append([]string{}, roles...)}
			for k, v := range extra {
				body[k] = v
			}
			apptest.Want(t, e.Backend(http.MethodPut, path, body), 200, "")
		}
		alive := func(token string) apptest.Resp {
			return e.Backend(http.MethodPost, "/v1/b2b/sessions/authenticate", map[string]any{"session_token": token})
		}

		setRoles(nil, "stytch_admin")
		setRoles(map[string]any{"preserve_existing_sessions": true})
		apptest.Want(t, alive(samlToken), 200, "")
		apptest.Want(t, alive(emailToken), 200, "")

		// A role no connection grants: nothing ends.
		setRoles(nil, "stytch_admin", "viewer")
		setRoles(nil, "stytch_admin")
		apptest.Want(t, alive(samlToken), 200, "")

		setRoles(nil)
		apptest.Want(t, alive(samlToken), 404, "session_not_found")
		apptest.Want(t, alive(emailToken), 200, "")
	})
}

// passwords/migrate's roles replace the explicit roles under the same rule:
// taking away one the SAML group also grants ends the connection's
// sessions unless preserve_existing_sessions, which is about that alone.
// The same hash each time, so no password change ends anything.
func TestMigrateRoleRemovalEndsTheConnectionsSessions(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		s := newAdminsGroupEnv(t, e)
		r := s.loginWithGroups("ada@acme.test", "okta-ada", "admins")
		samlToken, mid := r.Body["session_token"].(string), r.Body["member_id"].(string)
		emailToken, _ := e.LoginByEmailOTP(s.orgID, "ada@acme.test")
		hash, err := bcrypt.GenerateFromPassword([]byte(apptest.StrongPassword), 4)
		if err != nil {
			t.Fatal(err)
		}
		migrate := func(extra map[string]any) {
			t.Helper()
			body := map[string]any{"organization_id": s.orgID, "email_address": "ada@acme.test", "hash_type": "bcrypt",
				"hash": string(hash), "roles": []string{}}
			for k, v := range extra {
				body[k] = v
			}
			apptest.Want(t, e.Backend(http.MethodPost, "/v1/b2b/passwords/migrate", body), 200, "")
		}
		admin := func() {
			t.Helper()
			apptest.Want(t, e.Backend(http.MethodPut, "/v1/b2b/organizations/"+s.orgID+"/members/"+mid,
				map[string]any{"roles": []string{"stytch_admin"}}), 200, "")
		}
		alive := func(token string) apptest.Resp {
			return e.Backend(http.MethodPost, "/v1/b2b/sessions/authenticate", map[string]any{"session_token": token})
		}

		admin()
		migrate(map[string]any{"preserve_existing_sessions": true})
		apptest.Want(t, alive(samlToken), 200, "")
		apptest.Want(t, alive(emailToken), 200, "")

		admin()
		migrate(nil)
		apptest.Want(t, alive(samlToken), 404, "session_not_found")
		apptest.Want(t, alive(emailToken), 200, "")
	})
}
