package organization_test

import (
	"fmt"
	"net/http"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/latchkey/latchkey/internal/apptest"
	"github.com/latchkey/latchkey/internal/organization"
	"github.com/latchkey/latchkey/internal/rbac"
)

var batchPolicy = rbac.Policy{
	Resources: []rbac.Resource{{ResourceID: "documents", Description: "Shared documents", Actions: []string{"read", "write"}}},
	Roles: []rbac.Role{
		{RoleID: "viewer", Description: "Reads", Permissions: []rbac.Permission{{ResourceID: "documents", Actions: []string{"read"}}}},
		{RoleID: "editor", Description: "Edits", Permissions: []rbac.Permission{{ResourceID: "documents", Actions: []string{"*"}}}},
		{RoleID: "auditor", Description: "Audits", Permissions: []rbac.Permission{{ResourceID: "documents", Actions: []string{"read"}}}},
	},
}

// implicitFixture builds, with rows written directly, the SSO and SCIM
// state that grants implicit roles.
type implicitFixture struct {
	t   *testing.T
	e   *apptest.Env
	pid string
}

func (f implicitFixture) exec(q string, args ...any) {
	f.t.Helper()
	if _, err := f.e.App.DB.ExecContext(f.t.Context(), q, args...); err != nil {
		f.t.Fatal(err)
	}
}

// saml creates a SAML connection of org reading groups from the "groups"
// attribute, with these connection roles and group roles (group -> role).
func (f implicitFixture) saml(org string, connRoles []string, groupRoles [][2]string) string {
	f.t.Helper()
	r := f.e.Backend(http.MethodPost, "/v1/b2b/sso/saml/"+org, map[string]any{})
	apptest.Want(f.t, r, 200, "")
	id := r.Body["connection"].(map[string]any)["connection_id"].(string)
	conn := []any{}
	for _, role := range connRoles {
		conn = append(conn, map[string]any{"role_id": role})
	}
	group := []any{}
	for _, g := range groupRoles {
		group = append(group, map[string]any{"group": g[0], "role_id": g[1]})
	}
	apptest.Want(f.t, f.e.Backend(http.MethodPut, "/v1/b2b/sso/saml/"+org+"/connections/"+id, map[string]any{
		"attribute_mapping":                         map[string]any{"email": "mail", "groups": "groups"},
		"saml_connection_implicit_role_assignments": conn,
		"saml_group_implicit_role_assignments":      group}), 200, "")
	return id
}

// register records member's registration regID at connection conn of org,
// made at createdAt, with groups as the last login's groups attribute.
func (f implicitFixture) register(org, conn, member, regID string, createdAt int64, groups ...string) {
	f.t.Helper()
	attrs := "{}"
	if len(groups) > 0 {
		attrs = `{"groups":["` + strings.Join(groups, `","`) + `"]}`
	}
	f.exec(`INSERT INTO sso_registrations (registration_id, project_id, organization_id, connection_id, member_id,
		external_id, sso_attributes, created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $8)`,
		regID, f.pid, org, conn, member, "nameid-"+regID, attrs, createdAt)
}

// scim creates org's SCIM connection connID with groups (group_id ->
// role); each group is named as its id.
func (f implicitFixture) scim(org, connID string, groupRoles [][2]string) {
	f.t.Helper()
	roles := []string{}
	for _, g := range groupRoles {
		roles = append(roles, `{"role_id":"`+g[1]+`","group_id":"`+g[0]+`"}`)
	}
	f.exec(`INSERT INTO scim_connections (connection_id, project_id, organization_id, display_name, identity_provider,
		token_hash, token_last_four, token_expires_at, group_roles, created_at, updated_at)
		VALUES ($1, $2, $3, 'SCIM', 'generic', $4, 'abcd', 0, $5, 1, 1)`,
		connID, f.pid, org, "hash-"+connID, "["+strings.Join(roles, ",")+"]")
	for _, g := range groupRoles {
		f.exec(`INSERT INTO scim_groups (group_id, connection_id, organization_id, display_name, display_name_key,
			created_at, updated_at) VALUES ($1, $2, $3, $1, $1, 1, 1)`, g[0], connID, org)
	}
}

// provision registers member with SCIM connection connID of org.
func (f implicitFixture) provision(org, connID, member, email string) {
	f.t.Helper()
	f.exec(`INSERT INTO scim_registrations (registration_id, connection_id, organization_id, member_id, user_name_key,
		external_id, attributes, created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $6, $7, 1, 1)`,
		"scim-registration-"+member, connID, org, member, email, "ext-"+member, `{"userName":"`+email+`"}`)
}

// join puts member in SCIM group at createdAt.
func (f implicitFixture) join(group, member string, createdAt int64) {
	f.t.Helper()
	f.exec(`INSERT INTO scim_group_members (group_id, member_id, created_at) VALUES ($1, $2, $3)`, group, member, createdAt)
}

// A members search asks each implicit role source once for the whole
// page: with every member registered at a role-granting SAML connection
// and provisioned into a role-granting SCIM group, a page of 40 members
// runs as many statements as a page of 2 (it used to run one SSO query,
// one SCIM group-roles query and one SCIM groups query per member).
func TestMemberSearchImplicitRolesConstantStatements(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		ctx := t.Context()
		if _, err := e.App.RBAC.SetCustom(ctx, e.Project.Project.ID, batchPolicy); err != nil {
			t.Fatal(err)
		}
		f := implicitFixture{t, e, e.Project.Project.ID}
		org := e.CreateOrg("acme", "ALL_ALLOWED", nil)
		saml := f.saml(org, []string{"stytch_admin"}, [][2]string{{"eng", "editor"}})
		f.scim(org, "scim-connection-test-count", [][2]string{{"scim-group-test-ops", "auditor"}})
		add := func(n int) {
			for i := range n {
				email := fmt.Sprintf("m%02d-%d@acme.test", i, n)
				mid := e.CreateMember(org, email)
				f.register(org, saml, mid, "sso-registration-"+mid, int64(100+i), "eng")
				f.provision(org, "scim-connection-test-count", mid, email)
				f.join("scim-group-test-ops", mid, int64(100+i))
			}
		}
		search := func(want int) int {
			t.Helper()
			c := &counting{Querier: e.App.DB.Read()}
			res, err := e.App.Orgs.SearchMembersIn(ctx, c, f.pid, organization.MemberSearchParams{
				OrganizationIDs: []string{org}, Limit: 1000})
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Members) != want {
				t.Fatalf("search found %d members, want %d", len(res.Members), want)
			}
			for _, m := range res.Members {
				var ids []string
				for _, r := range m.Roles {
					ids = append(ids, r.RoleID)
				}
				if !slices.Equal(ids, []string{"stytch_member", "stytch_admin", "editor", "auditor"}) || m.SCIMRegistration == nil ||
					m.SCIMRegistration.SCIMAttributes == nil {
					t.Fatalf("member %s: roles %v, scim registration %+v", m.MemberID, ids, m.SCIMRegistration)
				}
			}
			return c.n
		}
		add(2)
		small := search(2)
		add(38)
		large := search(40)
		t.Logf("statements of a members search: %d for 2 members, %d for 40", small, large)
		if large != small {
			t.Fatalf("a search of 40 registered members ran %d statements, of 2 ran %d: statements grow with the page", large, small)
		}
	})
}

// A mixed batch (a plain member, members with several SAML registrations,
// SCIM group memberships, both, a direct role, and members of a second
// organization, their rows' creation times interleaved across members)
// reads the same roles, sources in the same order, in a members search as
// each member loaded alone; and in the order each source's rows give.
func TestMemberSearchImplicitRolesMatchSingleLoad(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		ctx := t.Context()
		if _, err := e.App.RBAC.SetCustom(ctx, e.Project.Project.ID, batchPolicy); err != nil {
			t.Fatal(err)
		}
		f := implicitFixture{t, e, e.Project.Project.ID}
		acme := e.CreateOrg("acme", "ALL_ALLOWED", nil)
		beta := e.CreateOrg("beta", "ALL_ALLOWED", nil)
		samlA := f.saml(acme, []string{"stytch_admin"}, [][2]string{{"eng", "editor"}})
		samlB := f.saml(acme, []string{"viewer"}, nil)
		samlC := f.saml(beta, []string{"editor"}, [][2]string{{"audit", "auditor"}})
		f.scim(acme, "scim-connection-test-acme", [][2]string{{"scim-group-test-eng", "editor"}, {"scim-group-test-ops", "auditor"}})
		f.scim(beta, "scim-connection-test-beta", [][2]string{{"scim-group-test-beta", "viewer"}})

		plain := e.CreateMember(acme, "plain@acme.test")
		// Two registrations, the later one with the smaller id: the
		// order is creation order.
		sso2 := e.CreateMember(acme, "sso2@acme.test")
		f.register(acme, samlB, sso2, "sso-registration-test-z", 5)
		f.register(acme, samlA, sso2, "sso-registration-test-a", 9, "eng")
		// SSO, two SCIM groups (joined in the order eng, ops) and a
		// direct role that a SCIM group grants too.
		both := e.CreateMember(acme, "both@acme.test")
		apptest.Want(t, e.Backend(http.MethodPut, "/v1/b2b/organizations/"+acme+"/members/"+both,
			map[string]any{"roles": []string{"auditor"}}), 200, "")
		f.register(acme, samlA, both, "sso-registration-test-m", 7)
		f.provision(acme, "scim-connection-test-acme", both, "both@acme.test")
		f.join("scim-group-test-ops", both, 8)
		f.join("scim-group-test-eng", both, 3)
		// Provisioned, in no group.
		scimOnly := e.CreateMember(acme, "scim@acme.test")
		f.provision(acme, "scim-connection-test-acme", scimOnly, "scim@acme.test")
		// In an acme SCIM group without being provisioned: grants nothing.
		stray := e.CreateMember(acme, "stray@acme.test")
		f.join("scim-group-test-ops", stray, 4)
		// beta: SAML group and connection roles, and SCIM.
		betaM := e.CreateMember(beta, "b@beta.test")
		f.register(beta, samlC, betaM, "sso-registration-test-b", 6, "audit", "other")
		f.provision(beta, "scim-connection-test-beta", betaM, "b@beta.test")
		f.join("scim-group-test-beta", betaM, 6)

		want := map[string][]string{
			plain: {"stytch_member: direct_assignment"},
			sso2: {"stytch_member: direct_assignment", "viewer: sso_connection " + samlB,
				"stytch_admin: sso_connection " + samlA, "editor: sso_connection_group " + samlA + " eng"},
			both: {"stytch_member: direct_assignment",
				"auditor: direct_assignment, scim_connection_group scim-connection-test-acme scim-group-test-ops",
				"stytch_admin: sso_connection " + samlA,
				"editor: scim_connection_group scim-connection-test-acme scim-group-test-eng"},
			scimOnly: {"stytch_member: direct_assignment"},
			stray:    {"stytch_member: direct_assignment"},
			betaM: {"stytch_member: direct_assignment", "editor: sso_connection " + samlC,
				"auditor: sso_connection_group " + samlC + " audit",
				"viewer: scim_connection_group scim-connection-test-beta scim-group-test-beta"},
		}
		orgOf := map[string]string{plain: acme, sso2: acme, both: acme, scimOnly: acme, stray: acme, betaM: beta}

		r := e.Backend(http.MethodPost, "/v1/b2b/organizations/members/search",
			map[string]any{"organization_ids": []string{acme, beta}, "limit": 1000})
		apptest.Want(t, r, 200, "")
		found := 0
		for _, x := range r.Body["members"].([]any) {
			m := x.(map[string]any)
			id := m["member_id"].(string)
			if got := roleLines(m); !slices.Equal(got, want[id]) {
				t.Errorf("%s in the search: roles\n%s\nwant\n%s", m["email_address"], strings.Join(got, "\n"), strings.Join(want[id], "\n"))
			}
			single := e.MemberByID(orgOf[id], id)
			for _, k := range []string{"roles", "is_admin", "scim_registration"} {
				if !reflect.DeepEqual(m[k], single[k]) {
					t.Errorf("%s: %s in the search %v, loaded alone %v", m["email_address"], k, m[k], single[k])
				}
			}
			found++
		}
		if found != len(want) {
			t.Fatalf("search found %d members, want %d: %s", found, len(want), r.Raw)
		}
	})
}

// roleLines renders a member answer's roles, in order, one line each:
// "role: source details, source details".
func roleLines(m map[string]any) []string {
	var out []string
	for _, x := range m["roles"].([]any) {
		r := x.(map[string]any)
		var srcs []string
		for _, y := range r["sources"].([]any) {
			s := y.(map[string]any)
			line := s["type"].(string)
			d, _ := s["details"].(map[string]any)
			for _, k := range []string{"connection_id", "group_id", "group"} {
				if v, ok := d[k]; ok {
					line += " " + v.(string)
				}
			}
			srcs = append(srcs, line)
		}
		out = append(out, r["role_id"].(string)+": "+strings.Join(srcs, ", "))
	}
	return out
}
