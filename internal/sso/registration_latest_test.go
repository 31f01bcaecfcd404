package sso_test

import (
	"context"
	"fmt"
	"net/http"
	"testing"

	"github.com/latchkey/latchkey/internal/apptest"
)

// memberDelete asks, for a session, whether it may delete members of org
// (stytch_admin may; a plain member may not).
func memberDelete(e *apptest.Env, token, org string) apptest.Resp {
	return e.Backend(http.MethodPost, "/v1/b2b/sessions/authenticate", map[string]any{"session_token": token,
		"authorization_check": map[string]any{"organization_id": org, "resource_id": "stytch.member", "action": "delete"}})
}

// wantRegistrations checks a member answer's sso_registrations: exactly
// one, at connID, under nameID.
func wantRegistrations(t *testing.T, m map[string]any, connID, nameID string) {
	t.Helper()
	regs, _ := m["sso_registrations"].([]any)
	if len(regs) != 1 || regs[0].(map[string]any)["connection_id"] != connID || regs[0].(map[string]any)["external_id"] != nameID {
		t.Fatalf("sso_registrations: %v", regs)
	}
}

// The audit's scenario: a member logs in through a SAML connection as a
// member of "admins" (stytch_admin) under one NameID, and later under
// another NameID as a member of "readers" only. The group role follows the
// latest login: the member is no longer an admin, and neither session may
// delete members. The earlier NameID's registration is replaced, not kept
// beside the new one.
func TestSAMLGroupRolesFollowTheLatestNameID(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		s := newAdminsGroupEnv(t, e)
		r := s.loginWithGroups("ada@acme.test", "nameid-1", "admins")
		first := r.Body["session_token"].(string)
		if r.Body["member"].(map[string]any)["is_admin"] != true {
			t.Fatalf("admins login: %s", r.Raw)
		}
		apptest.Want(t, memberDelete(e, first, s.orgID), 200, "")

		r = s.loginWithGroups("ada@acme.test", "nameid-2", "readers")
		m := r.Body["member"].(map[string]any)
		if m["is_admin"] != false || roleSources(m)["stytch_admin"] != nil {
			t.Fatalf("readers login under a new NameID: %s", r.Raw)
		}
		wantRegistrations(t, m, s.connID, "nameid-2")
		apptest.Want(t, memberDelete(e, r.Body["session_token"].(string), s.orgID), 403, "session_authorization_error")
		apptest.Want(t, memberDelete(e, first, s.orgID), 403, "session_authorization_error")
		if got := searchRole(t, e, s.orgID, "stytch_admin"); len(got) != 0 {
			t.Fatalf("search stytch_admin: %v", got)
		}
		if n := e.Count(`SELECT COUNT(*) FROM sso_registrations WHERE connection_id = $1`, s.connID); n != 1 {
			t.Fatalf("%d registrations", n)
		}
		// The first NameID logs in again as the same member, in admins.
		r = s.loginWithGroups("ada@acme.test", "nameid-1", "admins")
		if r.Body["member"].(map[string]any)["member_id"] != m["member_id"] || r.Body["member"].(map[string]any)["is_admin"] != true {
			t.Fatalf("back under the first NameID: %s", r.Raw)
		}
		wantRegistrations(t, r.Body["member"].(map[string]any), s.connID, "nameid-1")
	})
}

// A registration left from before a login replaced the others (or by two
// logins under different NameIDs at once) grants nothing: only the
// member's latest registration at the connection counts.
func TestSAMLStaleRegistrationGrantsNoGroupRole(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		s := newAdminsGroupEnv(t, e)
		r := s.loginWithGroups("ada@acme.test", "nameid-2", "readers")
		mid := r.Body["member"].(map[string]any)["member_id"].(string)
		token := r.Body["session_token"].(string)
		// An older login's row under another NameID, as an admin.
		if _, err := e.App.DB.ExecContext(context.Background(), `INSERT INTO sso_registrations (registration_id, project_id,
			organization_id, connection_id, member_id, external_id, sso_attributes, created_at, updated_at)
			VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$8)`, "stale-registration", e.Project.Project.ID, s.orgID, s.connID, mid, "nameid-1",
			`{"eduPersonAffiliation":"admins"}`, 1); err != nil {
			t.Fatal(err)
		}
		apptest.Want(t, memberDelete(e, token, s.orgID), 403, "session_authorization_error")
		if got := searchRole(t, e, s.orgID, "stytch_admin"); len(got) != 0 {
			t.Fatalf("search stytch_admin: %v", got)
		}
		if m := e.MemberByID(s.orgID, mid); m["is_admin"] != false {
			t.Fatalf("member: %v", m)
		}
		// The next login clears it.
		s.loginWithGroups("ada@acme.test", "nameid-2", "readers")
		if n := e.Count(`SELECT COUNT(*) FROM sso_registrations WHERE member_id = $1`, mid); n != 1 {
			t.Fatalf("%d registrations after the next login", n)
		}
	})
}

// Transient NameIDs (a new one at every login, Shibboleth's default): five
// logins leave the member one registration, the latest.
func TestSAMLTransientNameIDsKeepOneRegistration(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		s := newAdminsGroupEnv(t, e)
		var m map[string]any
		for i := range 5 {
			m = s.loginWithGroups("ada@acme.test", fmt.Sprintf("_transient-%d", i), "readers").Body["member"].(map[string]any)
		}
		wantRegistrations(t, m, s.connID, "_transient-4")
		if n := e.Count(`SELECT COUNT(*) FROM sso_registrations`); n != 1 {
			t.Fatalf("%d registrations after five transient logins", n)
		}
		if n := e.Count(`SELECT COUNT(*) FROM members`); n != 1 {
			t.Fatalf("%d members", n)
		}
	})
}

// The same rule at an external connection over SAML: its group roles
// follow the member's latest login through it, and a new NameID replaces
// the registration there.
func TestExternalGroupRolesFollowTheLatestNameID(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		if _, err := e.App.RBAC.SetCustom(context.Background(), e.Project.Project.ID, docsPolicy); err != nil {
			t.Fatal(err)
		}
		s := newSAMLEnv(t, e, nil)
		apptest.Want(t, e.Backend(http.MethodPut, "/v1/b2b/sso/saml/"+s.orgID+"/connections/"+s.connID, map[string]any{
			"attribute_mapping": map[string]any{"email": "mail", "groups": "eduPersonAffiliation"}}), 200, "")
		target := e.CreateOrg("globex", "NOT_ALLOWED", map[string]any{"sso_jit_provisioning": "ALL_ALLOWED"})
		extID := createExternal(t, e, target, s.orgID, s.connID, map[string]any{
			"group_implicit_role_assignments": []any{map[string]any{"role_id": "stytch_admin", "group": "admins"}}})["connection_id"].(string)

		r := s.loginThrough(extID, "ada@acme.test", "nameid-1", "admins")
		first := r.Body["session_token"].(string)
		apptest.Want(t, memberDelete(e, first, target), 200, "")

		r = s.loginThrough(extID, "ada@acme.test", "nameid-2", "readers")
		m := r.Body["member"].(map[string]any)
		if m["is_admin"] != false {
			t.Fatalf("readers login under a new NameID: %s", r.Raw)
		}
		wantRegistrations(t, m, extID, "nameid-2")
		apptest.Want(t, memberDelete(e, first, target), 403, "session_authorization_error")
		if n := e.Count(`SELECT COUNT(*) FROM sso_registrations WHERE connection_id = $1`, extID); n != 1 {
			t.Fatalf("%d registrations at the external connection", n)
		}
	})
}
