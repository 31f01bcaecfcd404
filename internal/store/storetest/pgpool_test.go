package storetest

import (
	"context"
	"os"
	"slices"
	"sync"
	"testing"

	"github.com/latchkey/latchkey/internal/store"
)

// poolKind returns a kind with a table that its migration seeds, a serial
// key and a trigger, for the pool's tests. Each test names its own kind, so
// that no other test shares its pool.
func poolKind(t *testing.T, name string) *Kind {
	t.Helper()
	if os.Getenv(EnvPostgres) == "" {
		t.Skip(EnvPostgres + " not set")
	}
	return &Kind{Name: name, Migrate: func(ctx context.Context, db *store.DB) error {
		if err := db.Migrate(ctx); err != nil {
			return err
		}
		for _, stmt := range []string{
			`CREATE TABLE seeded (id BIGSERIAL PRIMARY KEY, v TEXT NOT NULL)`,
			`INSERT INTO seeded (v) VALUES ('from the migration')`,
			`CREATE FUNCTION seeded_keep() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RETURN NEW; END $$`,
			`CREATE TRIGGER seeded_keep BEFORE INSERT ON seeded FOR EACH ROW EXECUTE FUNCTION seeded_keep()`,
		} {
			if _, err := db.ExecContext(ctx, stmt); err != nil {
				return err
			}
		}
		return nil
	}}
}

func currentSchema(t *testing.T, db *store.DB) string {
	t.Helper()
	var s string
	if err := db.Read().QueryRowContext(t.Context(), `SELECT current_schema()`).Scan(&s); err != nil {
		t.Fatal(err)
	}
	return s
}

func schemaExists(t *testing.T, name string) bool {
	t.Helper()
	var n int
	if err := pgProc.admin.QueryRowContext(t.Context(), `SELECT COUNT(*) FROM pg_namespace WHERE nspname = $1`, name).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n == 1
}

// A schema goes back to the pool after its test and comes out as freshly
// migrated: the migration's rows only, the sequence restarted, nothing the
// test wrote (schema_migrations included).
func TestPostgresPoolHandsBackAResetSchema(t *testing.T) {
	k := poolKind(t, "resettest")
	var used string
	t.Run("writes", func(t *testing.T) {
		db := k.Postgres(t)
		used = currentSchema(t, db)
		for _, stmt := range []string{
			`INSERT INTO seeded (v) VALUES ('by the test'), ('and again')`,
			`INSERT INTO schema_migrations (version, applied_at) VALUES ('by-the-test', 1)`,
		} {
			if _, err := db.ExecContext(t.Context(), stmt); err != nil {
				t.Fatal(err)
			}
		}
	})
	t.Run("finds it clean", func(t *testing.T) {
		db := k.Postgres(t)
		if got := currentSchema(t, db); got != used {
			t.Fatalf("got schema %s, want %s back from the pool", got, used)
		}
		rows, err := store.Strings(t.Context(), db.Read(), `SELECT id || ' ' || v FROM seeded ORDER BY id`)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(rows, []string{"1 from the migration"}) {
			t.Fatalf("seeded holds %q, want only the migration's row", rows)
		}
		var id int64
		if err := db.Read().QueryRowContext(t.Context(), `INSERT INTO seeded (v) VALUES ('next') RETURNING id`).Scan(&id); err != nil {
			t.Fatal(err)
		}
		if id != 2 {
			t.Fatalf("the next id is %d, want 2: the sequence kept the last test's values", id)
		}
		var n int
		if err := db.Read().QueryRowContext(t.Context(), `SELECT COUNT(*) FROM schema_migrations WHERE version = 'by-the-test'`).Scan(&n); err != nil || n != 0 {
			t.Fatalf("the last test's migration row survived (%d, %v)", n, err)
		}
	})
}

// A schema whose structure its test changed is dropped, not handed out
// again: the next test gets a schema as migrated.
func TestPostgresPoolDropsAChangedSchema(t *testing.T) {
	k := poolKind(t, "changetest")
	for _, change := range []string{
		`ALTER TABLE seeded ADD COLUMN extra TEXT`,
		`ALTER TABLE seeded ALTER COLUMN v DROP NOT NULL`,
		`CREATE INDEX seeded_v ON seeded (v)`,
		`ALTER TABLE seeded DISABLE TRIGGER seeded_keep`,
		`DROP TRIGGER seeded_keep ON seeded`,
		`CREATE TABLE extra (id INTEGER)`,
		`CREATE OR REPLACE FUNCTION seeded_keep() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RETURN NULL; END $$`,
		`ALTER SEQUENCE seeded_id_seq INCREMENT BY 10`,
	} {
		var changed string
		t.Run(change, func(t *testing.T) {
			db := k.Postgres(t)
			changed = currentSchema(t, db)
			if _, err := db.ExecContext(t.Context(), change); err != nil {
				t.Fatal(err)
			}
		})
		if schemaExists(t, changed) {
			t.Fatalf("after %q, schema %s is still there", change, changed)
		}
	}
	t.Run("unchanged", func(t *testing.T) {
		db := k.Postgres(t)
		if _, err := db.ExecContext(t.Context(), `INSERT INTO seeded (v) VALUES ('kept')`); err != nil {
			t.Fatal(err)
		}
	})
}

// The schemas of a process that is gone (its token's lock is free) are
// dropped by the next process to start; a live process's are kept.
func TestPostgresPoolSweepsSchemasOfGoneProcesses(t *testing.T) {
	poolKind(t, "sweeptest").Postgres(t) // starts this process's pool
	ctx := t.Context()
	gone, live := poolPrefix+"0000deadbeef_core_1", poolPrefix+"00001ivebeef_core_1"
	for _, s := range []string{gone, live} {
		if _, err := pgProc.admin.ExecContext(ctx, `CREATE SCHEMA `+quoteIdent(s)); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _, _ = pgProc.admin.Exec(`DROP SCHEMA IF EXISTS ` + quoteIdent(s) + ` CASCADE`) })
	}
	owner, err := pgProc.admin.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer owner.Close()
	if _, err := owner.ExecContext(ctx, `SELECT pg_advisory_lock(hashtext($1))`, poolPrefix+"00001ivebeef"); err != nil {
		t.Fatal(err)
	}
	if err := pgProc.sweep(ctx); err != nil {
		t.Fatal(err)
	}
	if schemaExists(t, gone) || !schemaExists(t, live) {
		t.Fatalf("after a sweep: gone process's schema there %v, live one's %v", schemaExists(t, gone), schemaExists(t, live))
	}
	if _, err := owner.ExecContext(ctx, `SELECT pg_advisory_unlock(hashtext($1))`, poolPrefix+"00001ivebeef"); err != nil {
		t.Fatal(err)
	}
	if err := pgProc.sweep(ctx); err != nil {
		t.Fatal(err)
	}
	if schemaExists(t, live) {
		t.Fatal("the schema of a process that ended was kept")
	}
}

// A column's collation is part of its structure: a test that gives one a
// linguistic collation (as scim's and m2m's ordering tests do) changes how
// every later test's rows sort, so its schema must not be handed out again.
func TestPostgresPoolDropsASchemaWithAChangedCollation(t *testing.T) {
	k := poolKind(t, "collationtest")
	var changed string
	t.Run("changes", func(t *testing.T) {
		db := k.Postgres(t)
		changed = currentSchema(t, db)
		if _, err := db.ExecContext(t.Context(), `ALTER TABLE seeded ALTER COLUMN v TYPE TEXT COLLATE "en-x-icu"`); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("next", func(t *testing.T) {
		db := k.Postgres(t)
		var coll string
		if err := db.Read().QueryRowContext(t.Context(), `SELECT COALESCE(collation_name, '') FROM information_schema.columns
			WHERE table_schema = current_schema() AND table_name = 'seeded' AND column_name = 'v'`).Scan(&coll); err != nil {
			t.Fatal(err)
		}
		if got := currentSchema(t, db); got == changed || coll != "" {
			t.Fatalf("got schema %s (the changed one was %s), its column's collation %q: the last test's collation survived", got, changed, coll)
		}
	})
}

// A transaction its test left open (a goroutine the test did not wait for,
// on a context of its own: DB.Close closes only idle connections) must not
// commit into the schema once the reset has run and the next test has it.
func TestPostgresPoolEndsWhatTheLastTestLeftOpen(t *testing.T) {
	k := poolKind(t, "leftopentest")
	hold, done := make(chan struct{}), make(chan error, 1)
	t.Run("leaves a transaction open", func(t *testing.T) {
		db := k.Postgres(t)
		inserted := make(chan struct{})
		var once sync.Once
		go func() {
			done <- db.Tx(context.Background(), func(q store.Querier) error {
				if _, err := q.ExecContext(context.Background(), `INSERT INTO seeded (v) VALUES ('late')`); err != nil {
					return err
				}
				once.Do(func() { close(inserted) })
				<-hold
				return nil
			})
		}()
		<-inserted
	})
	t.Run("next", func(t *testing.T) {
		db := k.Postgres(t)
		close(hold)
		<-done // its error, if any, is the point: the commit must not land
		var n int
		if err := db.Read().QueryRowContext(t.Context(), `SELECT COUNT(*) FROM seeded WHERE v = 'late'`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n != 0 {
			t.Fatalf("the last test's open transaction committed %d row(s) into the schema this test got", n)
		}
	})
}
