package store_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/latchkey/latchkey/internal/store"
	"github.com/latchkey/latchkey/internal/store/storetest"
)

func TestMigrateIsIdempotentAndErrorsMap(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		if err := db.Migrate(ctx); err != nil {
			t.Fatalf("second migrate: %v", err)
		}
		insert := `INSERT INTO projects (project_id, name, env, created_at) VALUES ($1, $2, $3, $4)`
		if _, err := db.ExecContext(ctx, insert, "p1", "P", "test", 1); err != nil {
			t.Fatalf("insert: %v", err)
		}
		_, err := db.ExecContext(ctx, insert, "p1", "P", "test", 1)
		if !errors.Is(err, store.ErrConflict) {
			t.Fatalf("duplicate insert: got %v, want ErrConflict", err)
		}
		var name string
		err = db.Read().QueryRowContext(ctx, `SELECT name FROM projects WHERE project_id = $1`, "nope").Scan(&name)
		if !errors.Is(store.MapError(err), store.ErrNotFound) {
			t.Fatalf("missing row: got %v, want ErrNotFound", err)
		}
		// The same upsert-with-RETURNING text must run on both engines: the
		// rate limiter depends on it.
		up := `INSERT INTO rate_limits (bucket, window_start, hits) VALUES ($1, $2, 1)
			ON CONFLICT (bucket, window_start) DO UPDATE SET hits = rate_limits.hits + 1 RETURNING hits`
		var n int
		for i := 1; i <= 3; i++ {
			if err := db.QueryRowContext(ctx, up, "b", 0).Scan(&n); err != nil || n != i {
				t.Fatalf("upsert %d: n=%d err=%v", i, n, err)
			}
		}
	})
}

func TestTxRollsBackOnError(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		boom := errors.New("boom")
		err := db.Tx(ctx, func(q store.Querier) error {
			if _, err := q.ExecContext(ctx, `INSERT INTO projects (project_id, name, env, created_at) VALUES ('p2','P','test',1)`); err != nil {
				return err
			}
			return boom
		})
		if !errors.Is(err, boom) {
			t.Fatalf("Tx error = %v", err)
		}
		var n int
		if err := db.Read().QueryRowContext(ctx, `SELECT COUNT(*) FROM projects`).Scan(&n); err != nil || n != 0 {
			t.Fatalf("rows after rollback = %d, err %v", n, err)
		}
	})
}

func TestAfterCommitRunsOnlyAfterCommit(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		var ran []string
		_ = db.Tx(ctx, func(q store.Querier) error {
			store.AfterCommit(q, func() { ran = append(ran, "rolled back") })
			return errors.New("boom")
		})
		err := db.Tx(ctx, func(q store.Querier) error {
			store.AfterCommit(q, func() {
				// The work sees the committed row through another connection.
				var n int
				if err := db.Read().QueryRowContext(ctx, `SELECT COUNT(*) FROM projects WHERE project_id = 'ac'`).Scan(&n); err == nil && n == 1 {
					ran = append(ran, "committed")
				}
			})
			_, err := q.ExecContext(ctx, `INSERT INTO projects (project_id, name, env, created_at) VALUES ('ac','P','test',1)`)
			return err
		})
		if err != nil || len(ran) != 1 || ran[0] != "committed" {
			t.Fatalf("after-commit work: %v (err %v)", ran, err)
		}
		store.AfterCommit(db, func() { ran = append(ran, "now") })
		if len(ran) != 2 {
			t.Fatal("outside a transaction the work must run at once")
		}
	})
}

// Finish's work runs after the commit with the writer free (on SQLite a
// write through another path would otherwise never run), never after a
// rollback, and its error is Tx's while the transaction stays committed.
func TestFinishRunsAfterCommitAndReportsItsError(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		var ran []string
		_ = db.Tx(ctx, func(q store.Querier) error {
			if err := store.Finish(q, func() error { ran = append(ran, "rolled back"); return nil }); err != nil {
				return err
			}
			return errors.New("boom")
		})
		failed := errors.New("signing failed")
		err := db.Tx(ctx, func(q store.Querier) error {
			if _, err := q.ExecContext(ctx, `INSERT INTO projects (project_id, name, env, created_at) VALUES ('fin','P','test',1)`); err != nil {
				return err
			}
			return store.Finish(q, func() error {
				if _, err := db.ExecContext(ctx, `UPDATE projects SET name = 'after' WHERE project_id = 'fin'`); err != nil {
					return err
				}
				ran = append(ran, "committed")
				return failed
			})
		})
		if !errors.Is(err, failed) || len(ran) != 1 || ran[0] != "committed" {
			t.Fatalf("Tx = %v, work %v", err, ran)
		}
		var name string
		if err := db.Read().QueryRowContext(ctx, `SELECT name FROM projects WHERE project_id = 'fin'`).Scan(&name); err != nil || name != "after" {
			t.Fatalf("the transaction must stay committed and the work see it: %q %v", name, err)
		}
		if err := store.Finish(db, func() error { return failed }); !errors.Is(err, failed) {
			t.Fatalf("outside a transaction: %v", err)
		}
	})
}

// A module's migration source applies after the core migrations, records
// its versions under its name, and is not applied twice.
func TestMigrateSources(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		src := store.Source{Name: "widgets", FS: fstest.MapFS{
			"0001_widgets.sql": {Data: []byte("CREATE TABLE widgets (id TEXT PRIMARY KEY);\n")},
			"README.md":        {Data: []byte("not a migration")},
		}}
		for range 2 {
			if err := db.Migrate(ctx, src); err != nil {
				t.Fatal(err)
			}
		}
		var n int
		if err := db.QueryRowContext(ctx, `SELECT COUNT(*) FROM schema_migrations WHERE version = 'widgets/0001'`).Scan(&n); err != nil || n != 1 {
			t.Fatalf("recorded %d times: %v", n, err)
		}
		if _, err := db.ExecContext(ctx, `INSERT INTO widgets (id) VALUES ('w')`); err != nil {
			t.Fatal(err)
		}
		if err := db.Migrate(ctx, store.Source{Name: "a/b", FS: fstest.MapFS{}}); err == nil {
			t.Fatal("a source name with '/' must be refused")
		}
	})
}

// Two files claiming one version (two helpers each adding "the next" number)
// used to run only the first; now neither runs and the start fails. Dialect
// variants of one version stay allowed.
func TestMigrateRefusesTwoMigrationsWithOneVersion(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		dup := store.Source{Name: "dup", FS: fstest.MapFS{
			"0001_a.sql": {Data: []byte("CREATE TABLE dup_a (id TEXT PRIMARY KEY);\n")},
			"0001_b.sql": {Data: []byte("CREATE TABLE dup_b (id TEXT PRIMARY KEY);\n")},
		}}
		if err := db.Migrate(ctx, dup); err == nil || !strings.Contains(err.Error(), "share version 0001") {
			t.Fatalf("two files for version 0001: %v", err)
		}
		dupVariant := store.Source{Name: "dupv", FS: fstest.MapFS{
			"0001_a.sqlite.sql":   {Data: []byte("SELECT 1;\n")},
			"0001_b.sqlite.sql":   {Data: []byte("SELECT 1;\n")},
			"0001_a.postgres.sql": {Data: []byte("SELECT 1;\n")},
			"0001_b.postgres.sql": {Data: []byte("SELECT 1;\n")},
		}}
		if err := db.Migrate(ctx, dupVariant); err == nil {
			t.Fatal("two variants of one version for one dialect must be refused")
		}
		variants := store.Source{Name: "variants", FS: fstest.MapFS{
			"0001_v.sql":          {Data: []byte("CREATE TABLE v_plain (id TEXT PRIMARY KEY);\n")},
			"0001_v.sqlite.sql":   {Data: []byte("CREATE TABLE v_dialect (id TEXT PRIMARY KEY);\n")},
			"0001_v.postgres.sql": {Data: []byte("CREATE TABLE v_dialect (id TEXT PRIMARY KEY);\n")},
		}}
		if err := db.Migrate(ctx, variants); err != nil {
			t.Fatal(err)
		}
		if _, err := db.ExecContext(ctx, `INSERT INTO v_dialect (id) VALUES ('x')`); err != nil {
			t.Fatalf("the dialect's variant must replace the plain file: %v", err)
		}
	})
}

// A version no migration of this binary has (a newer release's) is
// applied around and reported, core and module versions alike.
func TestUnknownVersionsAreReported(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		src := store.Source{Name: "widgets", FS: fstest.MapFS{
			"0001_widgets.sql": {Data: []byte("CREATE TABLE widgets (id TEXT PRIMARY KEY);\n")},
		}}
		if err := db.Migrate(ctx, src); err != nil {
			t.Fatal(err)
		}
		if got, err := db.UnknownVersions(ctx, src); err != nil || len(got) != 0 {
			t.Fatalf("after this binary's migrations: %v, %v", got, err)
		}
		for _, v := range []string{"9999", "widgets/0002"} {
			if _, err := db.ExecContext(ctx, `INSERT INTO schema_migrations (version, applied_at) VALUES ($1, 1)`, v); err != nil {
				t.Fatal(err)
			}
		}
		if err := db.Migrate(ctx, src); err != nil {
			t.Fatalf("a newer schema must still migrate (rolling deploys): %v", err)
		}
		got, err := db.UnknownVersions(ctx, src)
		if err != nil || strings.Join(got, ",") != "9999,widgets/0002" {
			t.Fatalf("UnknownVersions = %v, %v", got, err)
		}
	})
}

// KnownMigrations counts this binary's migrations, one per version whatever
// its dialect variants, core and sources alike: a binary with one more
// migration is newer (changefeed.Install compares them).
func TestKnownMigrationsCountsVersions(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		core, err := db.KnownMigrations()
		if err != nil {
			t.Fatal(err)
		}
		var applied int
		if err := db.QueryRowContext(ctx, `SELECT COUNT(*) FROM schema_migrations`).Scan(&applied); err != nil || applied != core {
			t.Fatalf("core: %d known, %d applied (%v)", core, applied, err)
		}
		src := store.Source{Name: "widgets", FS: fstest.MapFS{
			"0001_w.sqlite.sql":   {Data: []byte("SELECT 1;\n")},
			"0001_w.postgres.sql": {Data: []byte("SELECT 1;\n")},
			"0002_w.sql":          {Data: []byte("SELECT 1;\n")},
		}}
		if n, err := db.KnownMigrations(src); err != nil || n != core+2 {
			t.Fatalf("with a source of two versions: %d, %v; want %d", n, err, core+2)
		}
	})
}
