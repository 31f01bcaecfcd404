package scim_test

import (
	"net/http"
	"testing"

	"github.com/latchkey/latchkey/internal/apptest"
	"github.com/latchkey/latchkey/internal/store"
	"github.com/latchkey/latchkey/internal/store/storetest"
)

// deleteRow deletes one row (the rest cascades) inside q.
func deleteRow(e *apptest.Env, table, key, id string) func(q store.Querier) error {
	return func(q store.Querier) error {
		_, err := q.ExecContext(e.T.Context(), `DELETE FROM `+table+` WHERE `+key+` = $1`, id)
		return err
	}
}

// A SCIM connection created while its organization's deletion is in
// flight: the request reads the organization, then waits for its row.
// The lock found nothing once the deletion committed and the create
// carried on to an insert its foreign key refused, a 500; it is the
// organization_not_found a request sent a moment later gets.
func TestConnectionCreateInOrganizationDeletedMeanwhile(t *testing.T) {
	t.Parallel()
	e := apptest.New(t, apptest.Postgres(t), nil)
	org := e.CreateOrg("acme", "NOT_ALLOWED", nil)
	var r apptest.Resp
	delErr, _ := storetest.Overlap(t, e.App.DB, deleteRow(e, "organizations", "organization_id", org), func() error {
		r = e.Backend(http.MethodPost, "/v1/b2b/scim/"+org+"/connection", map[string]any{})
		return nil
	})
	if delErr != nil {
		t.Fatal(delErr)
	}
	apptest.Want(t, r, 404, "organization_not_found")
	if n := e.Count(`SELECT COUNT(*) FROM scim_connections`); n != 0 {
		t.Fatalf("%d connections written", n)
	}
}

// A SCIM push (a user or a group created) while its connection's
// deletion, alone or with its organization's, is in flight: the request
// authenticated against the connection, then its insert waits for the
// deletion and fails its foreign key once it commits. That was a 500; it
// is the 401 the token gets from then on, and nothing is written.
func TestPushWhileConnectionDeletedMeanwhile(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ name, path, table, key string }{
		{"user, connection deleted", "/Users", "scim_connections", "connection_id"},
		{"user, organization deleted", "/Users", "organizations", "organization_id"},
		{"group, connection deleted", "/Groups", "scim_connections", "connection_id"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			e, org, id, do := pgSCIM(t)
			key := id
			if c.table == "organizations" {
				key = org
			}
			body := map[string]any{"userName": "ada@acme.test"}
			if c.path == "/Groups" {
				body = map[string]any{"displayName": "Engineering"}
			}
			var r apptest.Resp
			delErr, _ := storetest.Overlap(t, e.App.DB, deleteRow(e, c.table, c.key, key), func() error {
				r = do(http.MethodPost, c.path, body)
				return nil
			})
			if delErr != nil {
				t.Fatal(delErr)
			}
			wantSCIM(t, r, 401, "")
			if n := e.Count(`SELECT COUNT(*) FROM members`) + e.Count(`SELECT COUNT(*) FROM scim_groups`); n != 0 {
				t.Fatalf("%d members and groups written", n)
			}
		})
	}
}
