// Package storetest opens real, migrated databases for tests: a SQLite file
// in t.TempDir(), and a fresh PostgreSQL schema when
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

// Each runs fn once per available engine as a subtest named after it.
func Each(t *testing.T, fn func(t *testing.T, db *store.DB)) {
	t.Helper()
	t.Run("sqlite", func(t *testing.T) {
		t.Parallel()
		fn(t, SQLite(t))
	})
	if os.Getenv(EnvPostgres) != "" {
		t.Run("postgres", func(t *testing.T) {
			t.Parallel()
			fn(t, Postgres(t))
		})
	}
}

// EachPair is Each with two handles on the same database, as two server
// processes (replicas, or a server and the CLI) have: separate connection
// pools and nothing shared in memory.
func EachPair(t *testing.T, fn func(t *testing.T, a, b *store.DB)) {
	t.Helper()
	t.Run("sqlite", func(t *testing.T) {
		t.Parallel()
		path := copyTemplate(t)
		fn(t, open(t, path), open(t, path))
	})
	if os.Getenv(EnvPostgres) != "" {
		t.Run("postgres", func(t *testing.T) {
			t.Parallel()
			dsn := postgresDSN(t)
			fn(t, open(t, dsn), open(t, dsn))
		})
	}
}

// SQLite returns a migrated database in a fresh temp file: a copy of a
// template migrated once per test process (template.go).
func SQLite(t testing.TB) *store.DB {
	t.Helper()
	return open(t, copyTemplate(t))
}

// Postgres returns a migrated database in a fresh schema of the server
// named by LATCHKEY_TEST_POSTGRES_DSN; the schema is dropped afterwards.
func Postgres(t testing.TB) *store.DB {
	t.Helper()
	return open(t, postgresDSN(t))
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

// postgresDSN creates a fresh schema and returns a DSN that uses it.
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
	u, err := url.Parse(admin)
	if err != nil {
		t.Fatalf("storetest: parse dsn: %v", err)
	}
	q := u.Query()
	q.Set("search_path", schema)
	u.RawQuery = q.Encode()
	return u.String()
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
