package rbac_test

import (
	"context"
	"net/http"
	"slices"
	"testing"

	"github.com/latchkey/latchkey/internal/apptest"
	"github.com/latchkey/latchkey/internal/organization"
	"github.com/latchkey/latchkey/internal/store"
)

// roleSources maps each role of a member answer to its source types.
func roleSources(t *testing.T, m map[string]any) map[string][]string {
	t.Helper()
	out := map[string][]string{}
	for _, r := range m["roles"].([]any) {
		r := r.(map[string]any)
		for _, s := range r["sources"].([]any) {
			out[r["role_id"].(string)] = append(out[r["role_id"].(string)], s.(map[string]any)["type"].(string))
		}
	}
	return out
}

func sessionRoles(t *testing.T, e *apptest.Env, token string) []string {
	t.Helper()
	r := e.Backend(http.MethodPost, "/v1/b2b/sessions/authenticate", map[string]any{"session_token": token})
	apptest.Want(t, r, 200, "")
	var out []string
	for _, id := range r.Body["member_session"].(map[string]any)["roles"].([]any) {
		out = append(out, id.(string))
	}
	return out
}

func memberPath(org, id string) string { return "/v1/b2b/organizations/" + org + "/members/" + id }

// Explicit roles on both faces: assigned by create and update (replacing
// the list), reported with direct_assignment, validated against the
// policy; taking one away revokes its permissions at the next check.
func TestExplicitRoles(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		setPolicy(t, e, docsPolicy)
		acme := e.CreateOrg("acme", "ALL_ALLOWED", nil)
		// stytch_member is everyone's already: naming it is refused, not
		// dropped (the API family's cannot_assign_default_rbac_role_id).
		apptest.Want(t, e.Backend(http.MethodPost, "/v1/b2b/organizations/"+acme+"/members",
			map[string]any{"email_address": "eve@acme.test", "roles": []string{"editor", "stytch_member"}}), 400, "cannot_assign_default_rbac_role_id")
		r := e.Backend(http.MethodPost, "/v1/b2b/organizations/"+acme+"/members",
			map[string]any{"email_address": "eve@acme.test", "roles": []string{"editor"}})
		apptest.Want(t, r, 200, "")
		eve := r.Body["member_id"].(string)
		m := r.Body["member"].(map[string]any)
		if got := roleSources(t, m); !slices.Equal(got["editor"], []string{"direct_assignment"}) || len(got) != 2 || m["is_admin"] != false {
			t.Fatalf("created with editor: %s", r.Raw)
		}
		apptest.Want(t, e.Backend(http.MethodPost, "/v1/b2b/organizations/"+acme+"/members",
			map[string]any{"email_address": "x@acme.test", "roles": []string{"ghost"}}), 400, "invalid_request")
		token, _ := e.LoginByEmailOTP(acme, "eve@acme.test")
		if got := sessionRoles(t, e, token); !slices.Equal(got, []string{"stytch_member", "editor"}) {
			t.Fatalf("session roles: %v", got)
		}
		apptest.Want(t, check(e, token, acme, "documents", "write"), 200, "")

		// Update replaces the explicit list; the session follows at once.
		r = e.Backend(http.MethodPut, memberPath(acme, eve), map[string]any{"roles": []string{"stytch_admin"}})
		if m := r.Body["member"].(map[string]any); r.Status != 200 || m["is_admin"] != true || roleSources(t, m)["editor"] != nil {
			t.Fatalf("roles replaced: %s", r.Raw)
		}
		apptest.Want(t, check(e, token, acme, "documents", "write"), 403, "session_authorization_error")
		apptest.Want(t, check(e, token, acme, "stytch.member", "delete"), 200, "")
		apptest.Want(t, e.Backend(http.MethodPut, memberPath(acme, eve), map[string]any{"roles": []string{"ghost"}}), 400, "invalid_request")
		// is_admin remains a spelling of stytch_admin; it must agree with roles.
		r = e.Backend(http.MethodPut, memberPath(acme, eve), map[string]any{"is_admin": false})
		if r.Status != 200 || r.Body["member"].(map[string]any)["is_admin"] != false {
			t.Fatalf("is_admin false: %s", r.Raw)
		}
		apptest.Want(t, check(e, token, acme, "stytch.member", "delete"), 403, "session_authorization_error")
		apptest.Want(t, e.Backend(http.MethodPut, memberPath(acme, eve), map[string]any{"roles": []string{"stytch_admin"}, "is_admin": false}),
			400, "invalid_request")

		// Organization custom roles can be assigned in that organization only.
		apptest.Want(t, e.Backend(http.MethodPut, "/v1/b2b/rbac/organizations/"+acme, map[string]any{"org_policy": map[string]any{
			"roles": []any{map[string]any{"role_id": "reviewer", "permissions": []any{
				map[string]any{"resource_id": "documents", "actions": []string{"write"}}}}}}}), 200, "")
		apptest.Want(t, e.Backend(http.MethodPut, memberPath(acme, eve), map[string]any{"roles": []string{"reviewer"}}), 200, "")
		apptest.Want(t, check(e, token, acme, "documents", "write"), 200, "")
		beta := e.CreateOrg("beta", "ALL_ALLOWED", nil)
		apptest.Want(t, e.Backend(http.MethodPost, "/v1/b2b/organizations/"+beta+"/members",
			map[string]any{"email_address": "eve@beta.test", "roles": []string{"reviewer"}}), 400, "invalid_request")
		// The custom role cannot be dropped while a member holds it; once
		// taken away from the member, it can, and what it granted is gone.
		apptest.Want(t, e.Backend(http.MethodPut, "/v1/b2b/rbac/organizations/"+acme,
			map[string]any{"org_policy": map[string]any{"roles": []any{}}}), 400, "invalid_request")
		apptest.Want(t, check(e, token, acme, "documents", "write"), 200, "")
		apptest.Want(t, e.Backend(http.MethodPut, memberPath(acme, eve), map[string]any{"roles": []string{}}), 200, "")
		apptest.Want(t, e.Backend(http.MethodPut, "/v1/b2b/rbac/organizations/"+acme,
			map[string]any{"org_policy": map[string]any{"roles": []any{}}}), 200, "")
		apptest.Want(t, check(e, token, acme, "documents", "write"), 403, "session_authorization_error")
	})
}

// Email implicit roles: the organization's rbac_email_implicit_role_assignments
// grant a role to every member with the domain, reported as email_assignment
// and carried by sessions; removing the assignment revokes it at once.
func TestEmailImplicitRoles(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		setPolicy(t, e, docsPolicy)
		acme := e.CreateOrg("acme", "ALL_ALLOWED", map[string]any{"rbac_email_implicit_role_assignments": []any{
			map[string]any{"role_id": "editor", "domain": "acme.test"}}})
		token, _ := e.LoginByEmailOTP(acme, "ann@acme.test")
		outsider, _ := e.LoginByEmailOTP(acme, "oz@other.test")
		r := e.Backend(http.MethodGet, "/v1/b2b/organizations/"+acme+"/member?email_address=ann@acme.test", nil)
		m := r.Body["member"].(map[string]any)
		if got := roleSources(t, m); !slices.Equal(got["editor"], []string{"email_assignment"}) {
			t.Fatalf("email role: %s", r.Raw)
		}
		for _, rr := range m["roles"].([]any) {
			if rr := rr.(map[string]any); rr["role_id"] == "editor" &&
				rr["sources"].([]any)[0].(map[string]any)["details"].(map[string]any)["email_domain"] != "acme.test" {
				t.Fatalf("email source details: %s", r.Raw)
			}
		}
		apptest.Want(t, check(e, token, acme, "documents", "write"), 200, "")
		apptest.Want(t, check(e, outsider, acme, "documents", "write"), 403, "session_authorization_error")
		// A direct assignment of the same role adds a second source.
		id := m["member_id"].(string)
		r = e.Backend(http.MethodPut, memberPath(acme, id), map[string]any{"roles": []string{"editor"}})
		if got := roleSources(t, r.Body["member"].(map[string]any)); !slices.Equal(got["editor"], []string{"direct_assignment", "email_assignment"}) {
			t.Fatalf("two sources: %s", r.Raw)
		}
		apptest.Want(t, e.Backend(http.MethodPut, memberPath(acme, id), map[string]any{"roles": []string{}}), 200, "")
		// Member search finds holders of the role through either source.
		r = e.Backend(http.MethodPost, "/v1/b2b/organizations/members/search", map[string]any{"organization_ids": []string{acme},
			"query": map[string]any{"operator": "AND", "operands": []any{map[string]any{"filter_name": "member_roles", "filter_value": []string{"editor"}}}}})
		if ms := r.Body["members"].([]any); r.Status != 200 || len(ms) != 1 || ms[0].(map[string]any)["email_address"] != "ann@acme.test" {
			t.Fatalf("search by email role: %s", r.Raw)
		}
		// Taking the assignment away (the session is cached by now).
		apptest.Want(t, e.Backend(http.MethodPut, "/v1/b2b/organizations/"+acme,
			map[string]any{"rbac_email_implicit_role_assignments": []any{}}), 200, "")
		apptest.Want(t, check(e, token, acme, "documents", "write"), 403, "session_authorization_error")
		if got := sessionRoles(t, e, token); !slices.Equal(got, []string{"stytch_member"}) {
			t.Fatalf("session roles after removal: %v", got)
		}
		// Assignments must name defined roles.
		apptest.Want(t, e.Backend(http.MethodPut, "/v1/b2b/organizations/"+acme, map[string]any{"rbac_email_implicit_role_assignments": []any{
			map[string]any{"role_id": "ghost", "domain": "acme.test"}}}), 400, "invalid_request")
	})
}

// ssoSource stands for the SSO module's ImplicitRoleSource: it grants
// roles by SAML connection and group, read from its own table.
type ssoSource struct{}

func (ssoSource) ImplicitRoles(ctx context.Context, q store.Querier, ms []*organization.Member) (map[string][]organization.RoleGrant, error) {
	out := map[string][]organization.RoleGrant{}
	for _, m := range ms {
		if m.EmailAddress != "sam@acme.test" {
			continue
		}
		out[m.MemberID] = []organization.RoleGrant{
			{RoleID: "editor", Source: organization.RoleSource{Type: organization.SourceSSOConnection,
				Details: map[string]any{"connection_id": "saml-connection-test-1"}}},
			{RoleID: "stytch_admin", Source: organization.RoleSource{Type: organization.SourceSSOGroup,
				Details: map[string]any{"connection_id": "saml-connection-test-1", "group": "admins"}}},
		}
	}
	return out, nil
}

// Implicit role sources registered by other modules (SSO) appear in
// member.roles with their sources; a session carries them only when it
// has a factor from that connection, which an email-code session has not.
func TestImplicitRoleSources(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		setPolicy(t, e, docsPolicy)
		e.App.Orgs.AddImplicitRoleSource(ssoSource{})
		acme := e.CreateOrg("acme", "ALL_ALLOWED", nil)
		token, _ := e.LoginByEmailOTP(acme, "sam@acme.test")
		r := e.Backend(http.MethodGet, "/v1/b2b/organizations/"+acme+"/member?email_address=sam@acme.test", nil)
		m := r.Body["member"].(map[string]any)
		got := roleSources(t, m)
		if !slices.Equal(got["editor"], []string{"sso_connection"}) || !slices.Equal(got["stytch_admin"], []string{"sso_connection_group"}) ||
			m["is_admin"] != true {
			t.Fatalf("sso roles on the member: %s", r.Raw)
		}
		if roles := sessionRoles(t, e, token); !slices.Equal(roles, []string{"stytch_member"}) {
			t.Fatalf("an email session carries SSO roles: %v", roles)
		}
		apptest.Want(t, check(e, token, acme, "documents", "write"), 403, "session_authorization_error")
		// A direct assignment counts for every session.
		apptest.Want(t, e.Backend(http.MethodPut, memberPath(acme, m["member_id"].(string)), map[string]any{"roles": []string{"editor"}}), 200, "")
		apptest.Want(t, check(e, token, acme, "documents", "write"), 200, "")
	})
}
