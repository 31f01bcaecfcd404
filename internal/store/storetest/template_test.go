package storetest

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/latchkey/latchkey/internal/store"
)

// appliedAt reads schema_migrations: version to applied_at.
func appliedAt(t *testing.T, db *store.DB) map[string]int64 {
	t.Helper()
	rows, err := db.Read().QueryContext(t.Context(), `SELECT version, applied_at FROM schema_migrations`)
	if err != nil {
		t.Fatalf("read schema_migrations: %v", err)
	}
	defer rows.Close()
	out := map[string]int64{}
	for rows.Next() {
		var v string
		var at int64
		if err := rows.Scan(&v, &at); err != nil {
			t.Fatalf("scan: %v", err)
		}
		out[v] = at
	}
	if err := rows.Err(); err != nil {
		t.Fatalf("rows: %v", err)
	}
	return out
}

// Two databases are copies of one migration run: every version carries
// the template's applied_at. Migrating each database anew (what this
// replaced, ~50 ms each) records the later run's clock in the second.
func TestSQLiteCopiesOneMigratedTemplate(t *testing.T) {
	a := appliedAt(t, SQLite(t))
	b := appliedAt(t, SQLite(t))
	known, err := SQLite(t).KnownMigrations()
	if err != nil {
		t.Fatal(err)
	}
	if len(a) != known || len(b) != known {
		t.Fatalf("migrations recorded: %d and %d, want %d", len(a), len(b), known)
	}
	for v, at := range a {
		if b[v] != at {
			t.Fatalf("version %s applied at %d and %d: the second database was migrated again", v, at, b[v])
		}
	}
}

// The template's file alone holds every migration: its WAL was
// checkpointed into it before it was read. Opened without Migrate, a copy
// must already record every known version.
func TestTemplateFileHoldsEveryMigration(t *testing.T) {
	b, err := Core.templateBytes()
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "copy.db")
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	db, err := store.Open(t.Context(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	known, err := db.KnownMigrations()
	if err != nil {
		t.Fatal(err)
	}
	if got := len(appliedAt(t, db)); got != known {
		t.Fatalf("template records %d migrations, want %d", got, known)
	}
}

// Each copy is a database of its own, private to its owner as the files
// store creates are.
func TestSQLiteCopiesAreSeparateAndPrivate(t *testing.T) {
	a, b := SQLite(t), SQLite(t)
	if _, err := a.ExecContext(t.Context(), `INSERT INTO schema_migrations (version, applied_at) VALUES ('only-in-a', 1)`); err != nil {
		t.Fatal(err)
	}
	if _, ok := appliedAt(t, b)["only-in-a"]; ok {
		t.Fatal("a write to one database shows in another: they share a file")
	}
	path := Core.copyTemplate(t)
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if mode := fi.Mode().Perm(); mode != 0o600 {
		t.Fatalf("copy's mode %o, want 600", mode)
	}
}

// Migrate on a copy finds nothing to apply; it runs for every test, so it
// must stay cheap.
func BenchmarkMigrateCurrent(b *testing.B) {
	db := SQLite(b)
	for b.Loop() {
		if err := db.Migrate(b.Context()); err != nil {
			b.Fatal(err)
		}
	}
}

// What each test pays for its database: a copy of the template, opened
// and checked by Migrate.
func BenchmarkSQLite(b *testing.B) {
	for b.Loop() {
		SQLite(b)
	}
}
