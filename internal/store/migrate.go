package store

import (
	"context"
	"embed"
	"fmt"
	"io/fs"
	"sort"
	"strings"
	"time"
)

// migrations holds forward-only numbered SQL files. NNNN_name.sql is
// portable; NNNN_name.<dialect>.sql, where present, replaces it for that
// engine only.
//
//go:embed migrations/*.sql
var migrations embed.FS

// Source is a module's own migrations: files NNNN_name.sql (and dialect
// overrides) at the root of FS. Their versions are recorded as
// "Name/NNNN", so a module numbers its files without knowing any other
// module's; sources apply after the core migrations, in the order given.
type Source struct {
	Name string
	FS   fs.FS
}

type migration struct {
	version string
	file    string
	fsys    fs.FS
}

func (db *DB) plan(sources []Source) ([]migration, error) {
	core, err := fs.Sub(migrations, "migrations")
	if err != nil {
		return nil, fmt.Errorf("store: read migrations: %w", err)
	}
	plan, err := db.planSource(Source{FS: core})
	if err != nil {
		return nil, err
	}
	for _, src := range sources {
		if src.Name == "" || strings.Contains(src.Name, "/") {
			return nil, fmt.Errorf("store: migration source name %q must be non-empty and without '/'", src.Name)
		}
		more, err := db.planSource(src)
		if err != nil {
			return nil, err
		}
		plan = append(plan, more...)
	}
	return plan, nil
}

func (db *DB) planSource(src Source) ([]migration, error) {
	entries, err := fs.ReadDir(src.FS, ".")
	if err != nil {
		return nil, fmt.Errorf("store: read migrations %q: %w", src.Name, err)
	}
	// A version names one migration, optionally with per-dialect variants
	// (NNNN_x.postgres.sql beside NNNN_x.sqlite.sql, or overriding NNNN_x.sql).
	// Two files claiming one version are an error, not a silent choice: one
	// of them would never run on any database.
	plain := map[string]string{}
	variants := map[string]string{} // version + "." + dialect
	for _, e := range entries {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".sql") {
			continue
		}
		name := strings.TrimSuffix(e.Name(), ".sql")
		version, _, _ := strings.Cut(name, "_")
		parts := strings.Split(name, ".")
		seen, key := plain, version
		if len(parts) > 1 {
			seen, key = variants, version+"."+parts[len(parts)-1]
		}
		if other, dup := seen[key]; dup {
			return nil, fmt.Errorf("store: migrations %s and %s in %q share version %s", other, e.Name(), src.Name, version)
		}
		seen[key] = e.Name()
	}
	chosen := map[string]string{}
	for v, f := range plain {
		chosen[v] = f
	}
	for key, f := range variants {
		if v, d, _ := strings.Cut(key, "."); d == string(db.dialect) {
			chosen[v] = f
		}
	}
	prefix := ""
	if src.Name != "" {
		prefix = src.Name + "/"
	}
	var plan []migration
	for v, f := range chosen {
		plan = append(plan, migration{version: prefix + v, file: f, fsys: src.FS})
	}
	sort.Slice(plan, func(i, j int) bool { return plan[i].version < plan[j].version })
	return plan, nil
}

// Migrate applies every migration not yet recorded in schema_migrations:
// the core ones, then each module source's. On PostgreSQL a
// transaction-scoped advisory lock serialises replicas that start at the
// same time; SQLite's single writer does the same job.
func (db *DB) Migrate(ctx context.Context, sources ...Source) error {
	plan, err := db.plan(sources)
	if err != nil {
		return err
	}
	return db.Tx(ctx, func(q Querier) error {
		if db.dialect == Postgres {
			if _, err := q.ExecContext(ctx, `SELECT pg_advisory_xact_lock(hashtext(current_schema() || '.latchkey_migrations'))`); err != nil {
				return fmt.Errorf("store: migration lock: %w", err)
			}
		}
		if _, err := q.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (version TEXT PRIMARY KEY, applied_at BIGINT NOT NULL)`); err != nil {
			return fmt.Errorf("store: create schema_migrations: %w", err)
		}
		// Every row or an error: a read cut short would re-apply migrations.
		versions, err := Strings(ctx, q, `SELECT version FROM schema_migrations`)
		if err != nil {
			return fmt.Errorf("store: list migrations: %w", err)
		}
		applied := map[string]bool{}
		for _, v := range versions {
			applied[v] = true
		}
		for _, m := range plan {
			if applied[m.version] {
				continue
			}
			body, err := fs.ReadFile(m.fsys, m.file)
			if err != nil {
				return fmt.Errorf("store: read %s: %w", m.file, err)
			}
			for _, stmt := range splitStatements(string(body)) {
				if _, err := q.ExecContext(ctx, stmt); err != nil {
					return fmt.Errorf("store: migration %s: %w", m.file, err)
				}
			}
			if _, err := q.ExecContext(ctx, `INSERT INTO schema_migrations (version, applied_at) VALUES ($1, $2)`,
				m.version, Millis(time.Now())); err != nil {
				return fmt.Errorf("store: record %s: %w", m.file, err)
			}
		}
		return nil
	})
}

// splitStatements splits a migration on semicolons that end a line, after
// dropping "--" comment lines. Migrations keep semicolons out of literals.
func splitStatements(body string) []string {
	var out []string
	var cur strings.Builder
	for _, line := range strings.Split(body, "\n") {
		trimmed := strings.TrimSpace(line)
		if trimmed == "" || strings.HasPrefix(trimmed, "--") {
			continue
		}
		cur.WriteString(line)
		cur.WriteByte('\n')
		if strings.HasSuffix(trimmed, ";") {
			out = append(out, strings.TrimSuffix(strings.TrimSpace(cur.String()), ";"))
			cur.Reset()
		}
	}
	if s := strings.TrimSpace(cur.String()); s != "" {
		out = append(out, s)
	}
	return out
}

// Embedded is the Source of a module that embeds its files as
// migrations/*.sql (go:embed keeps the folder in each path, so the module's
// FS is the folder's). Every module with tables of its own declares them
// with this one call.
func Embedded(name string, fsys fs.FS) Source {
	sub, err := fs.Sub(fsys, "migrations")
	if err != nil {
		// fs.Sub refuses only an invalid path, and this one is constant.
		panic(fmt.Errorf("store: migrations of %s: %w", name, err))
	}
	return Source{Name: name, FS: sub}
}

// KnownMigrations is how many migrations this binary has (the core ones
// and sources'), for this database's engine. Migrations are forward-only
// and never removed, so a later release has more: it says which of two
// binaries is newer (changefeed.Install).
func (db *DB) KnownMigrations(sources ...Source) (int, error) {
	plan, err := db.plan(sources)
	return len(plan), err
}

// UnknownVersions returns, sorted, the versions recorded in
// schema_migrations that none of this binary's migrations (the core ones
// and sources') has: a newer release migrated the database. Migrate
// applies around them, since during a rolling deploy old binaries run on
// the new schema until replaced; the caller warns. Call it after Migrate.
func (db *DB) UnknownVersions(ctx context.Context, sources ...Source) ([]string, error) {
	plan, err := db.plan(sources)
	if err != nil {
		return nil, err
	}
	known := make(map[string]bool, len(plan))
	for _, m := range plan {
		known[m.version] = true
	}
	versions, err := Strings(ctx, db.Read(), `SELECT version FROM schema_migrations ORDER BY version`)
	if err != nil {
		return nil, fmt.Errorf("store: list migrations: %w", err)
	}
	var unknown []string
	for _, v := range versions {
		if !known[v] {
			unknown = append(unknown, v)
		}
	}
	return unknown, nil
}
