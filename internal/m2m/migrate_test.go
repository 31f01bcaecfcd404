package m2m_test

import (
	"context"
	"io/fs"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/latchkey/latchkey/internal/app"
	"github.com/latchkey/latchkey/internal/apptest"
	"github.com/latchkey/latchkey/internal/idp"
	"github.com/latchkey/latchkey/internal/store"
)

// Clients written under the server-wide key (idp/0003) survive the move to
// the per-project key (idp/0004) as they were: fields, secrets (current and
// next of a rotation in progress), order, and the page index. The database
// is put back to idp/0003's schema by running that file itself; the
// clients are written through today's store, so with idp/0007's column,
// dropped again before the migrations run (0007 then runs after 0004, as
// on a database that never had it).
func TestPerProjectKeyMigrationKeepsClients(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		ctx := context.Background()
		db := e.App.DB
		old, err := fs.ReadFile(idp.Migrations().FS, "0003_m2m.sql")
		if err != nil {
			t.Fatal(err)
		}
		stmts := append([]string{`DROP TABLE m2m_clients`}, strings.Split(string(old), ";")...)
		stmts = append(stmts, `ALTER TABLE m2m_clients ADD COLUMN secret_chosen BOOLEAN NOT NULL DEFAULT TRUE`,
			`DELETE FROM schema_migrations WHERE version IN ('idp/0004', 'idp/0007')`)
		for _, stmt := range stmts {
			if strings.TrimSpace(stmt) == "" {
				continue
			}
			if _, err := db.ExecContext(ctx, stmt); err != nil {
				t.Fatalf("%s: %v", stmt, err)
			}
		}

		a := tenant{e, e.Project}
		const id = "nightly-reports"
		const secret = "migrated-reports-job-7Hq2vLp9Xw4KtR8"
		apptest.Want(t, a.backend("POST", "/v1/m2m/clients", map[string]any{"client_id": id, "client_secret": secret,
			"client_name": "Reports", "client_description": "Nightly", "scopes": []string{"read", "write"},
			"trusted_metadata": map[string]any{"team": "bi"}}), 200, "")
		e.Clock.Advance(time.Second)
		r := a.backend("POST", "/v1/m2m/clients", map[string]any{"client_name": "Generated", "scopes": []string{"read"}})
		apptest.Want(t, r, 200, "")
		generated := r.Body["m2m_client"].(map[string]any)["client_id"].(string)
		r = a.backend("POST", "/v1/m2m/clients/"+id+"/secrets/rotate/start", nil)
		apptest.Want(t, r, 200, "")
		next := r.Body["m2m_client"].(map[string]any)["next_client_secret"].(string)
		list := func() any {
			t.Helper()
			r := a.backend("POST", "/v1/m2m/clients/search", map[string]any{})
			apptest.Want(t, r, 200, "")
			return r.Body["m2m_clients"]
		}
		before := list()

		if _, err := db.ExecContext(ctx, `ALTER TABLE m2m_clients DROP COLUMN secret_chosen`); err != nil {
			t.Fatal(err)
		}
		if err := db.Migrate(ctx, app.Migrations()...); err != nil {
			t.Fatal(err)
		}
		if d := cmp.Diff(before, list()); d != "" {
			t.Fatalf("clients across the migration (-before +after):\n%s", d)
		}
		for _, s := range []string{secret, next} {
			apptest.Want(t, a.token(id, s, "read write"), 200, "")
		}
		if r := a.token(generated, secret, ""); r.Status != 401 {
			t.Fatalf("another client's secret: %s", r.Raw)
		}
		index := `SELECT COUNT(*) FROM sqlite_master WHERE type = 'index' AND name = 'm2m_clients_page'`
		if db.Dialect() == store.Postgres {
			index = `SELECT COUNT(*) FROM pg_indexes WHERE schemaname = current_schema() AND indexname = 'm2m_clients_page'`
		}
		if n := e.Count(index); n != 1 {
			t.Fatalf("page index: %d", n)
		}
		// The key is the new one: another project may now take the id.
		b := tenant{e, e.NewProject("Neighbour")}
		apptest.Want(t, b.backend("POST", "/v1/m2m/clients", map[string]any{"client_id": id, "scopes": []string{"x"}}), 200, "")
		apptest.Want(t, a.backend("POST", "/v1/m2m/clients", map[string]any{"client_id": id, "scopes": []string{"x"}}), 400, "duplicate_m2m_client_id")
	})
}

// Clients stored before secret_chosen (idp/0007) may hold secrets their
// customer chose, and nothing tells which: they all count as chosen, the
// guarded side (the address's allowance is checked before the secret),
// until a rotation completes with a generated secret. The database is put
// back to the schema before idp/0007 by dropping the column.
func TestSecretChosenMigrationGuardsExistingClients(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		ctx := context.Background()
		a := tenant{e, e.Project}
		r := a.backend("POST", "/v1/m2m/clients", map[string]any{"client_name": "Old job", "scopes": []string{"read"}})
		apptest.Want(t, r, 200, "")
		id, secret := r.Body["m2m_client"].(map[string]any)["client_id"].(string), r.Body["m2m_client"].(map[string]any)["client_secret"].(string)
		for _, stmt := range []string{`ALTER TABLE m2m_clients DROP COLUMN secret_chosen`,
			`DELETE FROM schema_migrations WHERE version = 'idp/0007'`} {
			if _, err := e.App.DB.ExecContext(ctx, stmt); err != nil {
				t.Fatalf("%s: %v", stmt, err)
			}
		}
		if err := e.App.DB.Migrate(ctx, app.Migrations()...); err != nil {
			t.Fatal(err)
		}
		if n := e.Count(`SELECT COUNT(*) FROM m2m_clients WHERE client_id = $1 AND secret_chosen`, id); n != 1 {
			t.Fatal("a client stored before the column does not count as chosen")
		}
		for range idp.ClientSecretFailuresPerIP.Limit {
			if r := a.token(id, "wrong-guess-wrong-guess", ""); r.Status != 401 {
				t.Fatalf("wrong secret: %d %s", r.Status, r.Raw)
			}
		}
		if r := a.token(id, secret, ""); r.Status != 429 {
			t.Fatalf("the old client's right secret past the allowance: %d %s", r.Status, r.Raw)
		}
		r = a.backend("POST", "/v1/m2m/clients/"+id+"/secrets/rotate/start", nil)
		apptest.Want(t, r, 200, "")
		next := r.Body["m2m_client"].(map[string]any)["next_client_secret"].(string)
		apptest.Want(t, a.backend("POST", "/v1/m2m/clients/"+id+"/secrets/rotate", nil), 200, "")
		apptest.Want(t, a.token(id, next, ""), 200, "")
	})
}
