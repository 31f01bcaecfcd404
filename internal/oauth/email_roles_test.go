package oauth_test

import (
	"net/http"
	"slices"
	"testing"

	"github.com/latchkey/latchkey/internal/apptest"
)

// sessionRoleIDs are the roles of a session check's member_session.
func sessionRoleIDs(t *testing.T, e *apptest.Env, token string) []string {
	t.Helper()
	r := e.Backend(http.MethodPost, "/v1/b2b/sessions/authenticate", map[string]any{"session_token": token})
	apptest.Want(t, r, 200, "")
	var out []string
	for _, id := range r.Body["member_session"].(map[string]any)["roles"].([]any) {
		out = append(out, id.(string))
	}
	return out
}

// memberRoleIDs are the role ids of a member object.
func memberRoleIDs(m map[string]any) []string {
	var out []string
	for _, r := range m["roles"].([]any) {
		out = append(out, r.(map[string]any)["role_id"].(string))
	}
	return out
}

// A person admitted by OAuth tenant JIT with an address their provider
// did not verify (a GitHub primary address boss@acme.test, unverified)
// holds none of the organization's email-domain roles: not in
// member.roles or is_admin, not in the session (checked twice, the second
// time from the session cache), not for the SDK face's authorization
// (renaming the organization is refused), and not for the members
// search's member_roles filter. Once the address's owner proves it (an
// email code), the member holds the role everywhere.
func TestUnverifiedTenantJITMemberHoldsNoEmailDomainRole(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		useGitHub(t, e, "boss@acme.test", false)
		org := tenantOrg(e)
		apptest.Want(t, e.Backend(http.MethodPut, "/v1/b2b/organizations/"+org, map[string]any{
			"rbac_email_implicit_role_assignments": []any{map[string]any{"domain": "acme.test", "role_id": "stytch_admin"}}}), 200, "")
		adminSearch := map[string]any{"organization_ids": []string{org},
			"query": apptest.Query("AND", apptest.Filter("member_roles", []string{"stytch_admin"}))["query"]}

		r := gitHubLogin(t, e, org)
		apptest.Want(t, r, 200, "")
		mem := apptest.MemberOf(r.Data())
		memberID := r.Data()["member_id"].(string)
		if mem["email_address"] != "boss@acme.test" || mem["email_address_verified"] != false {
			t.Fatalf("admitted: %s", r.Raw)
		}
		if mem["is_admin"] != false || !slices.Equal(memberRoleIDs(mem), []string{"stytch_member"}) {
			t.Fatalf("unverified member's roles: is_admin %v, roles %v", mem["is_admin"], memberRoleIDs(mem))
		}
		if roles := r.Data()["member_session"].(map[string]any)["roles"].([]any); len(roles) != 1 || roles[0] != "stytch_member" {
			t.Fatalf("login's session roles: %v", roles)
		}
		token := r.Data()["session_token"].(string)
		for range 2 {
			if got := sessionRoleIDs(t, e, token); !slices.Equal(got, []string{"stytch_member"}) {
				t.Fatalf("session check roles: %v", got)
			}
		}
		if m := e.MemberByID(org, memberID); m["is_admin"] != false || !slices.Equal(memberRoleIDs(m), []string{"stytch_member"}) {
			t.Fatalf("member get: %v", m)
		}
		apptest.Want(t, e.SDK(http.MethodPut, "/b2b/organizations/me", map[string]any{"organization_name": "Pwned"}, token),
			403, "unauthorized_action")
		if got, _ := e.EmailsOf(adminSearch); len(got) != 0 {
			t.Fatalf("member_roles stytch_admin finds %v", got)
		}

		// The owner proves the address.
		d := e.EmailLogin(org, "boss@acme.test")
		if d["member_id"] != memberID {
			t.Fatalf("owner's login: %v", d)
		}
		if mem := apptest.MemberOf(d); mem["is_admin"] != true || !slices.Equal(memberRoleIDs(mem), []string{"stytch_member", "stytch_admin"}) {
			t.Fatalf("verified member's roles in the login answer: %v", mem)
		}
		owner := d["session_token"].(string)
		if roles := d["member_session"].(map[string]any)["roles"].([]any); len(roles) != 2 || roles[1] != "stytch_admin" {
			t.Fatalf("owner's session roles: %v", roles)
		}
		for range 2 {
			if got := sessionRoleIDs(t, e, owner); !slices.Equal(got, []string{"stytch_member", "stytch_admin"}) {
				t.Fatalf("owner's session check roles: %v", got)
			}
		}
		if m := e.MemberByID(org, memberID); m["is_admin"] != true {
			t.Fatalf("member get after the proof: %v", m)
		}
		if got, _ := e.EmailsOf(adminSearch); !slices.Equal(got, []string{"boss@acme.test"}) {
			t.Fatalf("member_roles stytch_admin after the proof finds %v", got)
		}
		apptest.Want(t, e.SDK(http.MethodPut, "/b2b/organizations/me", map[string]any{"organization_name": "Acme Inc"}, owner), 200, "")
	})
}
