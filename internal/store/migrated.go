package store

import (
	"context"
	"fmt"
)

// Migrated reports whether this database was ever migrated (its
// schema_migrations table exists and records a migration). The CLI's
// commands other than migrate refuse a database that was not: on
// PostgreSQL a mistyped database or schema that exists (the server's
// default `postgres` database, say) would otherwise get a new Latchkey
// schema and be reported empty, as a mistyped SQLite path once was.
func (db *DB) Migrated(ctx context.Context) (bool, error) {
	q := `SELECT COUNT(*) FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations'`
	if db.dialect == Postgres {
		// to_regclass follows the connection's search_path, as every
		// other statement does, and answers NULL instead of failing.
		q = `SELECT COUNT(*) FROM (SELECT to_regclass('schema_migrations') AS t) r WHERE r.t IS NOT NULL`
	}
	var tables int
	if err := db.Read().QueryRowContext(ctx, q).Scan(&tables); err != nil {
		return false, fmt.Errorf("store: look for schema_migrations: %w", err)
	}
	if tables == 0 {
		return false, nil
	}
	var applied int
	if err := db.Read().QueryRowContext(ctx, `SELECT COUNT(*) FROM schema_migrations`).Scan(&applied); err != nil {
		return false, fmt.Errorf("store: count migrations: %w", err)
	}
	return applied > 0, nil
}
