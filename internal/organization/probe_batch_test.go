package organization_test

import (
	"fmt"
	"net/http"
	"slices"
	"testing"

	"github.com/latchkey/latchkey/internal/apptest"
	"github.com/latchkey/latchkey/internal/store"
)

// samlAdminConn creates a SAML connection of org that grants stytch_admin
// to every member registered with it, and returns its id.
func samlAdminConn(t *testing.T, e *apptest.Env, org string) string {
	t.Helper()
	r := e.Backend(http.MethodPost, "/v1/b2b/sso/saml/"+org, map[string]any{})
	apptest.Want(t, r, 200, "")
	saml := r.Body["connection"].(map[string]any)["connection_id"].(string)
	apptest.Want(t, e.Backend(http.MethodPut, "/v1/b2b/sso/saml/"+org+"/connections/"+saml, map[string]any{
		"saml_connection_implicit_role_assignments": []any{map[string]any{"role_id": "stytch_admin"}}}), 200, "")
	return saml
}

// A full page of the members search (keyset.MaxLimit members) in which
// only the last member has rows in the probed tables: the probe binds
// 1000 parameters reused in every EXISTS, and the last member's SSO role
// and OAuth registration must still be found.
func TestProbeFullSearchPage(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		ctx := t.Context()
		org := e.CreateOrg("acme", "ALL_ALLOWED", nil)
		pid := e.Project.Project.ID
		saml := samlAdminConn(t, e, org)
		err := e.App.DB.Tx(ctx, func(q store.Querier) error {
			for i := range 999 {
				if _, err := q.ExecContext(ctx, `INSERT INTO members (member_id, organization_id, project_id, email_id, email_address,
					status, created_at, updated_at) VALUES ($1, $2, $3, $4, $5, 'active', $6, $6)`,
					fmt.Sprintf("member-test-bulk-%04d", i), org, pid, fmt.Sprintf("email-test-bulk-%04d", i),
					fmt.Sprintf("bulk%04d@acme.test", i), int64(1000+i)); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		full := e.CreateMember(org, "full@acme.test") // created last: the end of the page
		exec := func(q string, args ...any) {
			t.Helper()
			if _, err := e.App.DB.ExecContext(ctx, q, args...); err != nil {
				t.Fatal(err)
			}
		}
		exec(`INSERT INTO member_oauth_registrations (registration_id, project_id, organization_id, member_id, provider,
			provider_subject, created_at, updated_at) VALUES ('oauth-registration-test-batch', $1, $2, $3, 'google', 'sub-1', 1, 1)`,
			pid, org, full)
		exec(`INSERT INTO sso_registrations (registration_id, project_id, organization_id, connection_id, member_id,
			external_id, sso_attributes, created_at, updated_at) VALUES ('sso-registration-test-batch', $1, $2, $3, $4,
			'nameid-1', '{}', 1, 1)`, pid, org, saml, full)

		for range 3 { // the SQLite statement cache prepares the text from its second run
			r := e.Backend(http.MethodPost, "/v1/b2b/organizations/members/search",
				map[string]any{"organization_ids": []string{org}, "limit": 1000})
			apptest.Want(t, r, 200, "")
			ms := r.Body["members"].([]any)
			if len(ms) != 1000 {
				t.Fatalf("page of %d members, want 1000", len(ms))
			}
			found := false
			for _, x := range ms {
				m := x.(map[string]any)
				if m["member_id"] != full {
					if len(m["roles"].([]any)) != 1 || m["is_admin"] != false {
						t.Fatalf("plain member %v", m)
					}
					continue
				}
				found = true
				oauth, _ := m["oauth_registrations"].([]any)
				if len(oauth) != 1 || !slices.Equal(sourcesOf(m, "stytch_admin"), []string{"sso_connection"}) || m["is_admin"] != true {
					t.Fatalf("registered member at the end of a full page read incomplete: %v", m)
				}
			}
			if !found {
				t.Fatal("registered member not on the page")
			}
		}
	})
}

// A member loaded inside the write transaction that registered them at a
// role-granting connection reads the role: the probe runs in the same
// transaction as the loaders, and sees its uncommitted row. A load
// through the read pool meanwhile sees neither.
func TestProbeInsideTransaction(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		ctx := t.Context()
		org := e.CreateOrg("acme", "ALL_ALLOWED", nil)
		pid := e.Project.Project.ID
		saml := samlAdminConn(t, e, org)
		mid := e.CreateMember(org, "ada@acme.test")
		err := e.App.DB.Tx(ctx, func(q store.Querier) error {
			if _, err := q.ExecContext(ctx, `INSERT INTO sso_registrations (registration_id, project_id, organization_id, connection_id,
				member_id, external_id, sso_attributes, created_at, updated_at) VALUES ('sso-registration-test-tx', $1, $2, $3, $4,
				'nameid-1', '{}', 1, 1)`, pid, org, saml, mid); err != nil {
				return err
			}
			m, err := e.App.Orgs.Member(ctx, q, pid, mid)
			if err != nil {
				return err
			}
			if !m.IsAdmin {
				t.Errorf("in the registering transaction: not admin: %+v", m.Roles)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if m := e.MemberByID(org, mid); m["is_admin"] != true {
			t.Fatalf("after commit: %v", m)
		}
	})
}
