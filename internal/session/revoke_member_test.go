package session_test

import (
	"net/http"
	"testing"

	"github.com/latchkey/latchkey/internal/apptest"
)

// api-reference §3.4: the browser SDK's session.revokeForMember calls
// POST /sdk/v1/b2b/sessions/revoke/{member_id} (no body) and reads
// ResponseCommon; every session of the member ends. Who may call it is the
// RBAC rule of the backend's revoke by member_id: revoke-sessions on
// stytch.member for anyone in the caller's organization, on stytch.self
// for one's own.
func TestSDKRevokeForMember(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		org := e.CreateOrg("acme", "ALL_ALLOWED", nil)
		e.CreateAdmin(org, "ada@acme.test")
		admin := e.SessionFor(org, "ada@acme.test")
		victim, _, mid := e.Login(org, "grace@acme.test")
		second, _, _ := e.Login(org, "grace@acme.test")
		alive := func(tok string) apptest.Resp {
			return e.SDK(http.MethodPost, "/b2b/sessions/authenticate", map[string]any{}, tok)
		}
		revoke := func(tok, memberID string) apptest.Resp {
			return e.SDK(http.MethodPost, "/b2b/sessions/revoke/"+memberID, nil, tok)
		}

		t.Run("a plain member may not end another's sessions", func(t *testing.T) {
			plain := e.SessionFor(org, "bob@acme.test")
			apptest.Want(t, revoke(plain, mid), 403, "unauthorized_action")
			apptest.Want(t, alive(victim), 200, "")
		})
		t.Run("another organization's member is not found", func(t *testing.T) {
			other := e.CreateOrg("initech", "ALL_ALLOWED", nil)
			outsider, _, oid := e.Login(other, "peter@initech.test")
			apptest.Want(t, revoke(admin, oid), 404, "member_not_found")
			apptest.Want(t, alive(outsider), 200, "")
		})
		t.Run("an unknown member is not found", func(t *testing.T) {
			apptest.Want(t, revoke(admin, "member-test-00000000-0000-0000-0000-000000000000"), 404, "member_not_found")
		})
		t.Run("without a session", func(t *testing.T) {
			apptest.Want(t, revoke("", mid), 401, "user_unauthenticated")
		})
		t.Run("an admin ends every session of the member", func(t *testing.T) {
			apptest.Want(t, revoke(admin, mid), 200, "")
			apptest.Want(t, alive(victim), 404, "session_not_found")
			apptest.Want(t, alive(second), 404, "session_not_found")
			apptest.Want(t, alive(admin), 200, "")
		})
		t.Run("a plain member may end their own", func(t *testing.T) {
			self, _, selfID := e.Login(org, "carol@acme.test")
			apptest.Want(t, revoke(self, selfID), 200, "")
			apptest.Want(t, alive(self), 404, "session_not_found")
		})
	})
}

// The backend's revoke by member_id answers alike with the project secret
// and with a member session header: an id the project has no member for
// is member_not_found; a member without sessions is revoked (nothing to
// end); another project's member is not this project's.
func TestBackendRevokeUnknownMember(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		org := e.CreateOrg("acme", "ALL_ALLOWED", nil)
		e.CreateAdmin(org, "ada@acme.test")
		admin := e.SessionFor(org, "ada@acme.test")
		const unknown = "member-test-00000000-0000-0000-0000-000000000000"
		revoke := func(memberID string) apptest.Resp {
			return e.Backend(http.MethodPost, "/v1/b2b/sessions/revoke", map[string]any{"member_id": memberID})
		}
		apptest.Want(t, revoke(unknown), 404, "member_not_found")
		apptest.Want(t, e.BackendAs(http.MethodPost, "/v1/b2b/sessions/revoke", map[string]any{"member_id": unknown},
			"X-Stytch-Member-Session", admin), 404, "member_not_found")

		apptest.Want(t, revoke(e.CreateMember(org, "idle@acme.test")), 200, "")

		other := e.NewProject("Other")
		outsider := e.Do(http.MethodPost, "/v1/b2b/organizations", map[string]any{"organization_name": "Initech",
			"organization_slug": "initech"}, nil, other.Project.ID, other.Secret)
		apptest.Want(t, outsider, 200, "")
		m := e.Do(http.MethodPost, "/v1/b2b/organizations/"+outsider.Body["organization"].(map[string]any)["organization_id"].(string)+"/members",
			map[string]any{"email_address": "peter@initech.test"}, nil, other.Project.ID, other.Secret)
		apptest.Want(t, m, 200, "")
		apptest.Want(t, revoke(m.Body["member_id"].(string)), 404, "member_not_found")
	})
}
