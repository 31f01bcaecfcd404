// Package storetest opens real, migrated databases for tests: a SQLite file
// in t.TempDir(), and a PostgreSQL schema of the test's own when
// LATCHKEY_TEST_POSTGRES_DSN is set, so every suite runs on both engines.
package storetest

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"net/url"
	"os"
	"testing"

	"github.com/latchkey/latchkey/internal/store"
)

// EnvPostgres names the variable holding an admin DSN of a throwaway server.
const EnvPostgres = "LATCHKEY_TEST_POSTGRES_DSN"

// A Kind is the schema a test's database starts with: Core (the store's
// own migrations) or more (apptest's adds every module's migrations and
// the change-feed triggers, app.MigrateDB). Each kind is migrated once per
// test process and engine; tests get copies (SQLite, template.go) or reset
// schemas from a pool (PostgreSQL, pgpool.go).
type Kind struct {
	// Name tells the kind's PostgreSQL schemas apart: lower-case letters.
	Name string
	// Migrate brings a new, empty database to the kind's schema.
	Migrate func(ctx context.Context, db *store.DB) error

	sqlite sqliteTemplate
	pg     pgPool
}

// Core is the store's own schema: store.DB.Migrate with no sources.
var Core = &Kind{Name: "core", Migrate: func(ctx context.Context, db *store.DB) error { return db.Migrate(ctx) }}

// Each runs fn once per available engine as a subtest named after it.
func Each(t *testing.T, fn func(t *testing.T, db *store.DB)) { Core.Each(t, fn) }

// EachPair is Core.EachPair.
func EachPair(t *testing.T, fn func(t *testing.T, a, b *store.DB)) { Core.EachPair(t, fn) }

// SQLite is Core.SQLite.
func SQLite(t testing.TB) *store.DB { return Core.SQLite(t) }

// Postgres is Core.Postgres.
func Postgres(t testing.TB) *store.DB { return Core.Postgres(t) }

// Each runs fn once per available engine, on a database of kind k, as a
// subtest named after the engine.
func (k *Kind) Each(t *testing.T, fn func(t *testing.T, db *store.DB)) {
	t.Helper()
	t.Run("sqlite", func(t *testing.T) {
		t.Parallel()
		fn(t, k.SQLite(t))
	})
	if os.Getenv(EnvPostgres) != "" {
		t.Run("postgres", func(t *testing.T) {
			t.Parallel()
			fn(t, k.Postgres(t))
		})
	}
}

// EachPair is Each with two handles on the same database, as two server
// processes (replicas, or a server and the CLI) have: separate connection
// pools and nothing shared in memory.
func (k *Kind) EachPair(t *testing.T, fn func(t *testing.T, a, b *store.DB)) {
	t.Helper()
	t.Run("sqlite", func(t *testing.T) {
		t.Parallel()
		path := k.copyTemplate(t)
		fn(t, open(t, path), open(t, path))
	})
	if os.Getenv(EnvPostgres) != "" {
		t.Run("postgres", func(t *testing.T) {
			t.Parallel()
			dsn := k.pooledDSN(t)
			fn(t, open(t, dsn), open(t, dsn))
		})
	}
}

// SQLite returns a database of kind k in a fresh temp file: a copy of a
// template migrated once per test process (template.go).
func (k *Kind) SQLite(t testing.TB) *store.DB {
	t.Helper()
	return open(t, k.copyTemplate(t))
}

// Postgres returns a database of kind k in a schema of its own on the
// server named by LATCHKEY_TEST_POSTGRES_DSN, as if freshly migrated: a
// schema of the process's pool, emptied and checked after its last test
// (pgpool.go).
func (k *Kind) Postgres(t testing.TB) *store.DB {
	t.Helper()
	return open(t, k.pooledDSN(t))
}

// PostgresSchema returns a DSN of a fresh, empty schema (never migrated)
// of the server named by LATCHKEY_TEST_POSTGRES_DSN, and its name; the
// schema is dropped afterwards.
func PostgresSchema(t testing.TB) (dsn, schema string) {
	t.Helper()
	dsn = postgresDSN(t)
	u, _ := url.Parse(dsn)
	return dsn, u.Query().Get("search_path")
}

// postgresDSN creates a fresh, empty schema and returns a DSN that uses it.
func postgresDSN(t testing.TB) string {
	t.Helper()
	admin := os.Getenv(EnvPostgres)
	if admin == "" {
		t.Skip(EnvPostgres + " not set")
	}
	var b [6]byte
	_, _ = rand.Read(b[:])
	schema := "t_" + hex.EncodeToString(b[:])
	adm, err := sql.Open("pgx", admin)
	if err != nil {
		t.Fatalf("storetest: open admin: %v", err)
	}
	t.Cleanup(func() { adm.Close() })
	if _, err := adm.Exec(`CREATE SCHEMA ` + schema); err != nil {
		t.Fatalf("storetest: create schema: %v", err)
	}
	t.Cleanup(func() { _, _ = adm.Exec(`DROP SCHEMA ` + schema + ` CASCADE`) })
	dsn, err := withSearchPath(admin, schema)
	if err != nil {
		t.Fatalf("storetest: %v", err)
	}
	return dsn
}

func open(t testing.TB, dsn string) *store.DB {
	t.Helper()
	ctx := context.Background()
	db, err := store.Open(ctx, dsn)
	if err != nil {
		t.Fatalf("storetest: open: %v", err)
	}
	t.Cleanup(func() { db.Close() })
	if err := db.Migrate(ctx); err != nil {
		t.Fatalf("storetest: migrate: %v", err)
	}
	return db
}
