package storetest

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"fmt"
	"net/url"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/latchkey/latchkey/internal/store"
)

// PostgreSQL schemas were what the Go tests spent most on: a test's schema
// took ~225 ms of migrations (~140 statements of DDL, files for every table
// and index) and a DROP SCHEMA afterwards, and the PostgreSQL server spent
// more CPU on them than the tests themselves (527 s against 328 s in one
// `go test ./...` on two cores). So each test process keeps a pool of
// migrated schemas per Kind. After its test, a schema is brought back to
// the state of a freshly migrated one (every table's rows replaced by the
// pristine template schema's, every sequence set to the template's value)
// and handed to the next test. A schema whose structure its test changed (a
// trigger dropped or disabled, a table, column or index added, a migration
// of the test's own) no longer matches the template's fingerprint and is
// dropped instead.
//
// Nothing runs at a test process's exit, so its schemas outlive it. Each
// process holds a session advisory lock named after its token for as long
// as it lives (one connection kept open), and every process that starts
// drops the pool schemas of the tokens whose lock is free: their owner is
// gone.

// poolPrefix begins every pool schema's name: lkpool_<token>_<kind>_<n>.
const poolPrefix = "lkpool_"

// pgProcess is this test process's connection to the server and its token.
type pgProcess struct {
	once   sync.Once
	err    error
	admin  *sql.DB
	keeper *sql.Conn // holds the token's advisory lock until the process ends
	token  string
}

var pgProc pgProcess

// pgPool is one kind's schemas in this process.
type pgPool struct {
	once        sync.Once
	err         error
	template    string // migrated once and never handed out: what a reset restores
	fingerprint string // the template's structure (fingerprint)
	restore     string // statements resetting a schema named schemaMark

	mu   sync.Mutex
	free []string
	made int
}

// schemaMark stands for the schema's name in restore and in fingerprints.
const schemaMark = "\x00schema\x00"

// pooledDSN returns a DSN of a schema of kind k, as freshly migrated, that
// is t's alone until t ends.
func (k *Kind) pooledDSN(t testing.TB) string {
	t.Helper()
	admin := os.Getenv(EnvPostgres)
	if admin == "" {
		t.Skip(EnvPostgres + " not set")
	}
	ctx := context.Background()
	schema, err := k.pg.acquire(ctx, k, admin)
	if err != nil {
		t.Fatalf("storetest: %v", err)
	}
	// Registered before the test opens its handles, so it runs after
	// they close.
	t.Cleanup(func() { k.pg.release(ctx, schema) })
	// Named after the schema too, so that release can find and end the
	// connections the test left behind (see endLeftovers).
	dsn, err := withParams(admin, "search_path", schema, "application_name", schema)
	if err != nil {
		t.Fatalf("storetest: %v", err)
	}
	return dsn
}

// withSearchPath is the admin DSN with schema as its search path.
func withSearchPath(admin, schema string) (string, error) {
	return withParams(admin, "search_path", schema)
}

// withParams is the admin DSN with query parameters set: key, value, ...
func withParams(admin string, kv ...string) (string, error) {
	u, err := url.Parse(admin)
	if err != nil {
		return "", fmt.Errorf("parse %s: %w", EnvPostgres, err)
	}
	q := u.Query()
	for i := 0; i+1 < len(kv); i += 2 {
		q.Set(kv[i], kv[i+1])
	}
	u.RawQuery = q.Encode()
	return u.String(), nil
}

// quoteIdent quotes a PostgreSQL identifier.
func quoteIdent(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }

// acquire returns a free schema of the pool, or a newly migrated one.
func (pl *pgPool) acquire(ctx context.Context, k *Kind, admin string) (string, error) {
	pl.once.Do(func() { pl.err = pl.build(ctx, k, admin) })
	if pl.err != nil {
		return "", pl.err
	}
	pl.mu.Lock()
	if n := len(pl.free); n > 0 {
		schema := pl.free[n-1]
		pl.free = pl.free[:n-1]
		pl.mu.Unlock()
		return schema, nil
	}
	pl.made++
	schema := fmt.Sprintf("%s%s_%s_%d", poolPrefix, pgProc.token, k.Name, pl.made)
	pl.mu.Unlock()
	return schema, pgProc.migrated(ctx, admin, schema, k)
}

// release resets schema for the next test, or drops it when it cannot be.
func (pl *pgPool) release(ctx context.Context, schema string) {
	err := endLeftovers(ctx, schema)
	if err == nil {
		err = pl.reset(ctx, schema)
	}
	if err != nil {
		_, _ = pgProc.admin.ExecContext(ctx, `DROP SCHEMA IF EXISTS `+quoteIdent(schema)+` CASCADE`)
		return
	}
	pl.mu.Lock()
	pl.free = append(pl.free, schema)
	pl.mu.Unlock()
}

// leftoverWait bounds how long release waits for a connection it ended to
// be gone.
const leftoverWait = 5000 // milliseconds

// endLeftovers ends the connections to schema that its test left open.
// The test's handles are closed by then (their cleanups run first), but
// DB.Close closes only idle connections: one in use, by a goroutine the
// test did not wait for, stays open, and a transaction on it would commit
// its rows after the reset, into the next test's schema (the reset's
// DELETE does not see, nor wait for, rows not yet committed). Ending it
// rolls its transaction back, and frees the locks the reset needs.
func endLeftovers(ctx context.Context, schema string) error {
	var ended bool
	if err := pgProc.admin.QueryRowContext(ctx, `SELECT COALESCE(bool_and(pg_terminate_backend(pid, $2)), true)
		FROM pg_stat_activity WHERE datname = current_database() AND application_name = $1 AND pid <> pg_backend_pid()`,
		schema, leftoverWait).Scan(&ended); err != nil {
		return fmt.Errorf("end connections left on %s: %w", schema, err)
	}
	if !ended {
		return fmt.Errorf("a connection left on %s outlived %d ms after it was ended", schema, leftoverWait)
	}
	return nil
}

// reset brings schema back to the template's state: the same structure
// (else an error), the template's rows in every table, its sequences'
// values. Triggers stay quiet meanwhile (session_replication_role), so
// neither foreign keys nor the change feed's triggers act on the rows.
func (pl *pgPool) reset(ctx context.Context, schema string) error {
	fp, err := fingerprint(ctx, pgProc.admin, schema)
	if err != nil {
		return err
	}
	if fp != pl.fingerprint {
		return fmt.Errorf("schema %s was changed by its test", schema)
	}
	tx, err := pgProc.admin.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer func() { _ = tx.Rollback() }()
	// A test that left a connection open in a transaction would hold locks
	// the reset needs: give up on the schema rather than hang.
	if _, err := tx.ExecContext(ctx, `SET LOCAL session_replication_role = replica; SET LOCAL lock_timeout = '10s'`); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, strings.ReplaceAll(pl.restore, schemaMark, quoteIdent(schema))); err != nil {
		return err
	}
	return tx.Commit()
}

// build migrates the kind's template schema and learns what a reset does.
func (pl *pgPool) build(ctx context.Context, k *Kind, admin string) error {
	pgProc.once.Do(func() { pgProc.err = pgProc.start(ctx, admin) })
	if pgProc.err != nil {
		return pgProc.err
	}
	pl.template = poolPrefix + pgProc.token + "_" + k.Name + "_template"
	if err := pgProc.migrated(ctx, admin, pl.template, k); err != nil {
		return err
	}
	var err error
	if pl.fingerprint, err = fingerprint(ctx, pgProc.admin, pl.template); err != nil {
		return err
	}
	pl.restore, err = restoreScript(ctx, pgProc.admin, pl.template)
	return err
}

// restoreScript returns the statements that give a schema of the same
// structure as template the template's contents: every table emptied, the
// template's rows copied into those that have any (migrations that seed
// data), every sequence set as the template's is.
func restoreScript(ctx context.Context, admin *sql.DB, template string) (string, error) {
	rels, err := store.Strings(ctx, admin, `SELECT c.relkind::text || c.relname FROM pg_class c
		WHERE c.relnamespace = $1::text::regnamespace AND c.relkind IN ('r', 'p', 'S') ORDER BY c.relname`, template)
	if err != nil {
		return "", fmt.Errorf("list %s: %w", template, err)
	}
	tmpl := quoteIdent(template)
	var b strings.Builder
	for _, rel := range rels {
		kind, name := rel[:1], quoteIdent(rel[1:])
		if kind == "S" {
			fmt.Fprintf(&b, "SELECT setval('%s.%s', last_value, is_called) FROM %s.%s;\n", schemaMark, name, tmpl, name)
			continue
		}
		fmt.Fprintf(&b, "DELETE FROM %s.%s;\n", schemaMark, name)
		var seeded bool
		if err := admin.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM `+tmpl+`.`+name+`)`).Scan(&seeded); err != nil {
			return "", fmt.Errorf("read %s.%s: %w", template, name, err)
		}
		if seeded {
			fmt.Fprintf(&b, "INSERT INTO %s.%s SELECT * FROM %s.%s;\n", schemaMark, name, tmpl, name)
		}
	}
	return b.String(), nil
}

// fingerprint describes schema's structure, its name replaced by
// schemaMark: relations, columns with types, defaults and collations (a
// collation decides how the next test's rows sort and compare), sequences'
// parameters (an increment decides its next ids), indexes,
// constraints, triggers with whether they fire, functions and views. Two
// schemas with the same fingerprint take the same rows and behave alike.
func fingerprint(ctx context.Context, admin *sql.DB, schema string) (string, error) {
	lines, err := store.Strings(ctx, admin, `
		SELECT 'rel ' || c.relname || ' ' || c.relkind::text || c.relpersistence::text || c.relrowsecurity::text
			FROM pg_class c WHERE c.relnamespace = $1::text::regnamespace
		UNION ALL
		SELECT 'col ' || c.relname || '.' || a.attname || ' ' || a.attnum || ' ' || format_type(a.atttypid, a.atttypmod)
				|| ' ' || a.attnotnull || ' ' || COALESCE(pg_get_expr(d.adbin, d.adrelid), '-')
				|| ' ' || COALESCE(co.collname, '-') || ' ' || a.attidentity::text || a.attgenerated::text
			FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid
			LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
			LEFT JOIN pg_collation co ON co.oid = a.attcollation
			WHERE c.relnamespace = $1::text::regnamespace AND a.attnum > 0 AND NOT a.attisdropped
		UNION ALL
		SELECT 'seq ' || c.relname || ' ' || format_type(s.seqtypid, NULL) || ' ' || s.seqstart || ' ' || s.seqincrement
				|| ' ' || s.seqmin || ' ' || s.seqmax || ' ' || s.seqcache || ' ' || s.seqcycle
			FROM pg_sequence s JOIN pg_class c ON c.oid = s.seqrelid WHERE c.relnamespace = $1::text::regnamespace
		UNION ALL
		SELECT 'idx ' || pg_get_indexdef(i.indexrelid)
			FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid WHERE c.relnamespace = $1::text::regnamespace
		UNION ALL
		SELECT 'con ' || conrelid::regclass::text || ' ' || conname || ' ' || pg_get_constraintdef(oid)
			FROM pg_constraint WHERE connamespace = $1::text::regnamespace
		UNION ALL
		SELECT 'trg ' || pg_get_triggerdef(t.oid) || ' ' || t.tgenabled::text
			FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid
			WHERE c.relnamespace = $1::text::regnamespace AND NOT t.tgisinternal
		UNION ALL
		SELECT 'fn ' || p.proname || '(' || pg_get_function_arguments(p.oid) || ') ' || md5(p.prosrc)
			FROM pg_proc p WHERE p.pronamespace = $1::text::regnamespace
		UNION ALL
		SELECT 'view ' || c.relname || ' ' || pg_get_viewdef(c.oid)
			FROM pg_class c WHERE c.relnamespace = $1::text::regnamespace AND c.relkind IN ('v', 'm')
		ORDER BY 1`, schema)
	if err != nil {
		return "", fmt.Errorf("fingerprint %s: %w", schema, err)
	}
	return strings.ReplaceAll(strings.Join(lines, "\n"), schema, schemaMark), nil
}

// start opens the process's admin pool, takes its token's lock and drops
// the schemas of processes that are gone.
func (p *pgProcess) start(ctx context.Context, dsn string) error {
	admin, err := sql.Open("pgx", dsn)
	if err != nil {
		return fmt.Errorf("open admin: %w", err)
	}
	keeper, err := admin.Conn(ctx)
	if err != nil {
		admin.Close()
		return fmt.Errorf("connect admin: %w", err)
	}
	var b [6]byte
	_, _ = rand.Read(b[:])
	p.admin, p.keeper, p.token = admin, keeper, hex.EncodeToString(b[:])
	if _, err := keeper.ExecContext(ctx, `SELECT pg_advisory_lock(hashtext($1))`, poolPrefix+p.token); err != nil {
		return fmt.Errorf("lock token: %w", err)
	}
	return p.sweep(ctx)
}

// sweep drops the pool schemas of every token whose lock is free.
func (p *pgProcess) sweep(ctx context.Context) error {
	names, err := store.Strings(ctx, p.admin, `SELECT nspname FROM pg_namespace WHERE starts_with(nspname, $1)`, poolPrefix)
	if err != nil {
		return fmt.Errorf("list pool schemas: %w", err)
	}
	byToken := map[string][]string{}
	for _, name := range names {
		if token, _, ok := strings.Cut(strings.TrimPrefix(name, poolPrefix), "_"); ok && token != p.token {
			byToken[token] = append(byToken[token], name)
		}
	}
	for token, schemas := range byToken {
		var gone bool
		if err := p.keeper.QueryRowContext(ctx, `SELECT pg_try_advisory_lock(hashtext($1))`, poolPrefix+token).Scan(&gone); err != nil {
			return fmt.Errorf("probe token %s: %w", token, err)
		}
		if !gone {
			continue
		}
		for _, s := range schemas {
			if _, err := p.admin.ExecContext(ctx, `DROP SCHEMA IF EXISTS `+quoteIdent(s)+` CASCADE`); err != nil {
				return fmt.Errorf("drop %s: %w", s, err)
			}
		}
		if _, err := p.keeper.ExecContext(ctx, `SELECT pg_advisory_unlock(hashtext($1))`, poolPrefix+token); err != nil {
			return fmt.Errorf("unlock token %s: %w", token, err)
		}
	}
	return nil
}

// migrated creates schema and migrates it as kind k; a schema that fails
// is dropped.
func (p *pgProcess) migrated(ctx context.Context, admin, schema string, k *Kind) (err error) {
	if _, err := p.admin.ExecContext(ctx, `CREATE SCHEMA `+quoteIdent(schema)); err != nil {
		return fmt.Errorf("create schema %s: %w", schema, err)
	}
	defer func() {
		if err != nil {
			_, _ = p.admin.ExecContext(ctx, `DROP SCHEMA IF EXISTS `+quoteIdent(schema)+` CASCADE`)
		}
	}()
	dsn, err := withSearchPath(admin, schema)
	if err != nil {
		return err
	}
	db, err := store.Open(ctx, dsn)
	if err != nil {
		return fmt.Errorf("open %s: %w", schema, err)
	}
	defer db.Close()
	if err := k.Migrate(ctx, db); err != nil {
		return fmt.Errorf("migrate %s: %w", schema, err)
	}
	return nil
}
