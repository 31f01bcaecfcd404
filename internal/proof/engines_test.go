// Package proof holds the reliability proofs that run the real binary: a
// crash under load (SIGKILL, restart, nothing acknowledged lost, nothing
// half-written) and three replicas on one PostgreSQL database.
package proof

import (
	"context"
	"database/sql"
	"net/url"
	"os"
	"path/filepath"
	"testing"

	_ "github.com/jackc/pgx/v5/stdlib" // the "pgx" driver for the admin connection

	"github.com/latchkey/latchkey/internal/store/storetest"
)

// pgDatabase creates a fresh database on the server named by
// LATCHKEY_TEST_POSTGRES_DSN (several processes share it, so a schema per
// test is not enough) and drops it when the test ends. It skips with a
// clear message when PostgreSQL is not configured.
func pgDatabase(t *testing.T) string {
	t.Helper()
	admin := os.Getenv(storetest.EnvPostgres)
	if admin == "" {
		t.Skip(storetest.EnvPostgres + " is not set: this proof needs PostgreSQL (make test and CI set it)")
	}
	adm, err := sql.Open("pgx", admin)
	if err != nil {
		t.Fatal(err)
	}
	name := "latchkey_proof_" + randHex(6)
	if _, err := adm.ExecContext(context.Background(), `CREATE DATABASE `+name); err != nil {
		adm.Close()
		t.Fatalf("create database: %v", err)
	}
	t.Cleanup(func() {
		_, _ = adm.ExecContext(context.Background(), `DROP DATABASE IF EXISTS `+name+` WITH (FORCE)`)
		adm.Close()
	})
	u, err := url.Parse(admin)
	if err != nil {
		t.Fatal(err)
	}
	u.Path = "/" + name
	return u.String()
}

// eachEngine runs fn on a fresh SQLite file and, when configured, a fresh
// PostgreSQL database.
func eachEngine(t *testing.T, fn func(t *testing.T, dsn string)) {
	t.Run("sqlite", func(t *testing.T) {
		t.Parallel()
		fn(t, filepath.Join(t.TempDir(), "proof.db"))
	})
	if os.Getenv(storetest.EnvPostgres) != "" {
		t.Run("postgres", func(t *testing.T) {
			t.Parallel()
			fn(t, pgDatabase(t))
		})
	}
}
