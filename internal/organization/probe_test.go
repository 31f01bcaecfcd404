package organization_test

import (
	"context"
	"database/sql"
	"net/http"
	"slices"
	"sort"
	"testing"

	"github.com/latchkey/latchkey/internal/apptest"
	"github.com/latchkey/latchkey/internal/store"
)

// counting is a Querier that counts the statements run through it.
type counting struct {
	store.Querier
	n int
}

func (c *counting) ExecContext(ctx context.Context, q string, args ...any) (sql.Result, error) {
	c.n++
	return c.Querier.ExecContext(ctx, q, args...)
}

func (c *counting) QueryContext(ctx context.Context, q string, args ...any) (*sql.Rows, error) {
	c.n++
	return c.Querier.QueryContext(ctx, q, args...)
}

func (c *counting) QueryRowContext(ctx context.Context, q string, args ...any) *sql.Row {
	c.n++
	return c.Querier.QueryRowContext(ctx, q, args...)
}

// A member with no row in any table a member loader reads (retired
// addresses, OAuth, SCIM and SSO registrations), the common case, loads
// in two statements with every module wired: the member's row and one
// probe that finds nothing to load. A member with a row in each reads
// complete, alone and in a batch beside a plain one.
func TestMemberDecorationProbesFirst(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		ctx := t.Context()
		org := e.CreateOrg("acme", "ALL_ALLOWED", nil)
		plain := e.CreateMember(org, "plain@acme.test")
		full := e.CreateMember(org, "full@acme.test")
		pid := e.Project.Project.ID

		load := func(memberID string) int {
			t.Helper()
			c := &counting{Querier: e.App.DB}
			m, err := e.App.Orgs.Member(ctx, c, pid, memberID)
			if err != nil {
				t.Fatal(err)
			}
			if m.MemberID != memberID {
				t.Fatalf("loaded %s, want %s", m.MemberID, memberID)
			}
			return c.n
		}
		if n := load(plain); n != 2 {
			t.Fatalf("a plain member loaded in %d statements, want 2 (the member, the probe)", n)
		}

		// full gets a row in each table: a retired address, an OAuth
		// registration, a SCIM registration in a group granting
		// stytch_admin, and an SSO registration at a SAML connection
		// granting stytch_admin.
		exec := func(q string, args ...any) {
			t.Helper()
			if _, err := e.App.DB.ExecContext(ctx, q, args...); err != nil {
				t.Fatal(err)
			}
		}
		exec(`INSERT INTO member_retired_emails (email_id, project_id, organization_id, member_id, email_address, created_at)
			VALUES ('email-test-probe', $1, $2, $3, 'old@acme.test', 1)`, pid, org, full)
		exec(`INSERT INTO member_oauth_registrations (registration_id, project_id, organization_id, member_id, provider,
			provider_subject, created_at, updated_at) VALUES ('oauth-registration-test-probe', $1, $2, $3, 'google', 'sub-1', 1, 1)`,
			pid, org, full)
		exec(`INSERT INTO scim_connections (connection_id, project_id, organization_id, display_name, identity_provider,
			token_hash, token_last_four, token_expires_at, group_roles, created_at, updated_at)
			VALUES ('scim-connection-test-probe', $1, $2, 'SCIM', 'generic', 'x', 'abcd', 0,
			'[{"role_id":"stytch_admin","group_id":"scim-group-test-probe"}]', 1, 1)`, pid, org)
		exec(`INSERT INTO scim_groups (group_id, connection_id, organization_id, display_name, created_at, updated_at)
			VALUES ('scim-group-test-probe', 'scim-connection-test-probe', $1, 'admins', 1, 1)`, org)
		exec(`INSERT INTO scim_group_members (group_id, member_id, created_at) VALUES ('scim-group-test-probe', $1, 1)`, full)
		exec(`INSERT INTO scim_registrations (registration_id, connection_id, organization_id, member_id, user_name_key,
			external_id, attributes, created_at, updated_at) VALUES ('scim-registration-test-probe', 'scim-connection-test-probe',
			$1, $2, 'full@acme.test', 'ext-1', '{"userName":"full@acme.test"}', 1, 1)`, org, full)
		r := e.Backend(http.MethodPost, "/v1/b2b/sso/saml/"+org, map[string]any{})
		apptest.Want(t, r, 200, "")
		saml := r.Body["connection"].(map[string]any)["connection_id"].(string)
		apptest.Want(t, e.Backend(http.MethodPut, "/v1/b2b/sso/saml/"+org+"/connections/"+saml, map[string]any{
			"saml_connection_implicit_role_assignments": []any{map[string]any{"role_id": "stytch_admin"}}}), 200, "")
		exec(`INSERT INTO sso_registrations (registration_id, project_id, organization_id, connection_id, member_id,
			external_id, sso_attributes, created_at, updated_at) VALUES ('sso-registration-test-probe', $1, $2, $3, $4,
			'nameid-1', '{}', 1, 1)`, pid, org, saml, full)

		// Again and again: on SQLite the probe's text is prepared from its
		// second run on (store's statement cache), and binds the same.
		for range 4 {
			if n := load(plain); n != 2 {
				t.Fatalf("a plain member loaded in %d statements beside a registered one, want 2", n)
			}
		}
		wantFull := func(m map[string]any) {
			t.Helper()
			retired, _ := m["retired_email_addresses"].([]any)
			oauth, _ := m["oauth_registrations"].([]any)
			scim, _ := m["scim_registration"].(map[string]any)
			if len(retired) != 1 || retired[0].(map[string]any)["email_address"] != "old@acme.test" ||
				len(oauth) != 1 || oauth[0].(map[string]any)["member_oauth_registration_id"] != "oauth-registration-test-probe" ||
				scim["registration_id"] != "scim-registration-test-probe" || scim["scim_attributes"] == nil {
				t.Fatalf("registered member read incomplete: %v", m)
			}
			if got := sourcesOf(m, "stytch_admin"); !slices.Equal(got, []string{"scim_connection_group", "sso_connection"}) ||
				m["is_admin"] != true {
				t.Fatalf("registered member's stytch_admin sources %v: %v", got, m)
			}
		}
		wantPlain := func(m map[string]any) {
			t.Helper()
			retired, _ := m["retired_email_addresses"].([]any)
			oauth, _ := m["oauth_registrations"].([]any)
			if retired == nil || len(retired) != 0 || oauth == nil || len(oauth) != 0 || m["scim_registration"] != nil ||
				len(m["roles"].([]any)) != 1 || m["is_admin"] != false {
				t.Fatalf("plain member: %v", m)
			}
		}
		wantFull(e.MemberByID(org, full))
		wantPlain(e.MemberByID(org, plain))

		// Both in one batch: the loaders run for the lot, and fill only
		// the member whose rows they find.
		r = e.Backend(http.MethodPost, "/v1/b2b/organizations/members/search", map[string]any{"organization_ids": []string{org}})
		apptest.Want(t, r, 200, "")
		seen := 0
		for _, x := range r.Body["members"].([]any) {
			m := x.(map[string]any)
			switch m["member_id"] {
			case full:
				wantFull(m)
				seen++
			case plain:
				wantPlain(m)
				seen++
			}
		}
		if seen != 2 {
			t.Fatalf("search found %d of the two members: %s", seen, r.Raw)
		}
	})
}

// sourcesOf lists the source types through which m holds roleID, sorted.
func sourcesOf(m map[string]any, roleID string) []string {
	var out []string
	for _, x := range m["roles"].([]any) {
		r := x.(map[string]any)
		if r["role_id"] != roleID {
			continue
		}
		for _, s := range r["sources"].([]any) {
			out = append(out, s.(map[string]any)["type"].(string))
		}
	}
	sort.Strings(out)
	return out
}
