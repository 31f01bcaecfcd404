// Package changefeed tells every Latchkey process which cached rows went
// stale. Database triggers on watched tables append (table, scope, key) to
// the `changes` table in the same transaction as the change itself, so a
// write from any replica, or from the CLI while a server runs, is recorded
// exactly when it commits. Each process reads the rows after its cursor
// (Feed.Sync) every ~200 ms and at once after its own writes, and hands
// them to the caches that subscribed.
//
// Why a polled table rather than PostgreSQL LISTEN/NOTIFY: SQLite has no
// notifications, and a CLI process writing to the SQLite file a server has
// open must reach that server too, so one mechanism has to work on both
// engines. A poll is also lossless across reconnects (NOTIFY drops what is
// sent while a listener reconnects) and needs no dedicated connection per
// replica. Its cost is one indexed read per interval per replica, and a
// second while PostgreSQL ids below the cursor are awaited (Feed's holes).
package changefeed

import (
	"context"
	"fmt"
	"regexp"
	"strings"

	"github.com/latchkey/latchkey/internal/store"
)

// Scope says what a change's key names, so caches can act on tables they
// have never heard of: a module registers its table with the scope of the
// answers it affects.
type Scope string

// Scopes of a change.
const (
	// Session: the key is a member_session_id.
	Session Scope = "session"
	// Member: the key is a member_id; cached member answers drop it.
	Member Scope = "member"
	// Organization: the key is an organization_id.
	Organization Scope = "organization"
	// Project: the key is a project_id; everything cached for the project
	// (credentials, origins, signing keys, members' derived fields such as
	// roles from a project-wide policy) drops.
	Project Scope = "project"
)

// Watch registers a table: every inserted, updated or deleted row records
// the value of KeyColumn under Scope.
type Watch struct {
	Table     string
	KeyColumn string
	Scope     Scope
	// Columns, when set, limits UPDATE triggers to changes of these
	// columns (member_sessions: last_accessed_at is written in the
	// background and must not invalidate anything).
	Columns []string
	// NoInsert skips INSERT triggers for tables whose new rows cannot be in
	// any cache yet (nothing caches a session that does not exist).
	NoInsert bool
}

var ident = regexp.MustCompile(`^[a-z_][a-z0-9_]*$`)

func (w Watch) validate() error {
	for _, s := range append([]string{w.Table, w.KeyColumn, string(w.Scope)}, w.Columns...) {
		if !ident.MatchString(s) {
			return fmt.Errorf("changefeed: watch %s.%s: %q is not a plain identifier", w.Table, w.KeyColumn, s)
		}
	}
	return nil
}

func (w Watch) trigger(op string) string {
	return "changefeed_" + w.Table + "_" + w.KeyColumn + "_" + op
}

func (w Watch) ops() []string {
	if w.NoInsert {
		return []string{"update", "delete"}
	}
	return []string{"insert", "update", "delete"}
}

// A change row's at is the database's clock in Unix milliseconds when the
// row was written: these expressions, one per engine. Whatever compares
// with at (Sweep, startHoles) reads the same clock, so a host clock that
// disagrees with the database's moves nothing.
const (
	pgNowMillis     = `(extract(epoch from clock_timestamp()) * 1000)::bigint`
	sqliteNowMillis = `CAST(unixepoch('subsec') * 1000 AS INTEGER)`
)

// nowMillis is the database clock expression of d (see pgNowMillis).
func nowMillis(d store.Dialect) string {
	if d == store.Postgres {
		return pgNowMillis
	}
	return sqliteNowMillis
}

// pgFunction is the one trigger function on PostgreSQL: TG_ARGV names the
// key column and scope. An UPDATE that changes the key records both keys.
const pgFunction = `CREATE OR REPLACE FUNCTION changefeed_record() RETURNS trigger LANGUAGE plpgsql AS $f$
DECLARE
  k_old TEXT;
  k_new TEXT;
  at_ms BIGINT := ` + pgNowMillis + `;
BEGIN
  IF TG_OP <> 'INSERT' THEN k_old := to_jsonb(OLD) ->> TG_ARGV[0]; END IF;
  IF TG_OP <> 'DELETE' THEN k_new := to_jsonb(NEW) ->> TG_ARGV[0]; END IF;
  IF k_old IS NOT NULL THEN
    INSERT INTO changes (tbl, scope, row_key, at) VALUES (TG_TABLE_NAME, TG_ARGV[1], k_old, at_ms);
  END IF;
  IF k_new IS NOT NULL AND k_new IS DISTINCT FROM k_old THEN
    INSERT INTO changes (tbl, scope, row_key, at) VALUES (TG_TABLE_NAME, TG_ARGV[1], k_new, at_ms);
  END IF;
  RETURN NULL;
END $f$`

// Install (re)creates the triggers of every watch in one transaction, so a
// replica starting while others run never leaves a moment without them.
// It runs after the migrations (the watched tables must exist); on
// PostgreSQL it takes the migrations' advisory lock so replicas starting
// together do not race on the same DDL.
//
// level says how new the installing binary's definitions are: the number
// of migrations it knows (store.DB.KnownMigrations). Migrations are
// forward-only and never removed, so a later release knows more of them,
// and the columns a watch lists come with the migrations that add them.
// Each trigger is recorded with the level that installed it
// (changefeed_triggers, store migration 0114), and Install never replaces
// one recorded at a higher level: during a rolling deploy a replica of the
// older release restarting after the newer one migrated would otherwise
// put back its narrower triggers (a member_sessions column list without
// the newer columns), and the newer replicas' caches would miss those
// changes until their expiry. At an equal level (two builds of one schema)
// the starting binary's definition wins, as before levels; a trigger with
// no record (installed before 0114) is replaced.
func Install(ctx context.Context, db *store.DB, level int, watches []Watch) error {
	for _, w := range watches {
		if err := w.validate(); err != nil {
			return err
		}
	}
	return db.Tx(ctx, func(q store.Querier) error {
		if db.Dialect() == store.Postgres {
			if _, err := q.ExecContext(ctx, `SELECT pg_advisory_xact_lock(hashtext(current_schema() || '.latchkey_migrations'))`); err != nil {
				return fmt.Errorf("changefeed: lock: %w", err)
			}
		}
		levels, err := installedLevels(ctx, q)
		if err != nil {
			return err
		}
		// install runs stmts for the trigger (or function) name unless a
		// newer binary installed it, and records level for it.
		install := func(name string, stmts ...string) error {
			if got, ok := levels[name]; ok && got > level {
				return nil
			}
			for _, stmt := range stmts {
				if _, err := q.ExecContext(ctx, stmt); err != nil {
					return err
				}
			}
			if got, ok := levels[name]; ok && got == level {
				return nil
			}
			if _, err := q.ExecContext(ctx, `INSERT INTO changefeed_triggers (name, level) VALUES ($1, $2)
				ON CONFLICT (name) DO UPDATE SET level = excluded.level`, name, level); err != nil {
				return fmt.Errorf("changefeed: record %s: %w", name, err)
			}
			return nil
		}
		if db.Dialect() == store.Postgres {
			if err := install(pgFunctionName, pgFunction); err != nil {
				return fmt.Errorf("changefeed: trigger function: %w", err)
			}
		}
		var installed map[string]string
		if db.Dialect() == store.SQLite {
			var err error
			if installed, err = sqliteTriggers(ctx, q); err != nil {
				return err
			}
		}
		for _, w := range watches {
			var err error
			if db.Dialect() == store.Postgres {
				err = install(w.trigger("row"), pgTriggerSQL(w)...)
			} else {
				for _, op := range w.ops() {
					s := sqliteTriggerSQL(w, op)
					// A trigger already installed as written is left
					// alone: recreating it on every start rewrote the
					// schema, so every connection parsed it again (memory
					// held at idle) and each start wrote to the WAL.
					if installed[w.trigger(op)] == s[1] {
						s = nil
					}
					if err = install(w.trigger(op), s...); err != nil {
						break
					}
				}
			}
			if err != nil {
				return fmt.Errorf("changefeed: trigger on %s.%s: %w", w.Table, w.KeyColumn, err)
			}
		}
		return nil
	})
}

// pgFunctionName is pgFunction's name, recorded like a trigger's: its body
// may change between releases too.
const pgFunctionName = "changefeed_record"

// installedLevels maps each recorded trigger (or function) to the level of
// the binary that installed it.
func installedLevels(ctx context.Context, q store.Querier) (map[string]int, error) {
	rows, err := q.QueryContext(ctx, `SELECT name, level FROM changefeed_triggers`)
	if err != nil {
		return nil, fmt.Errorf("changefeed: installed levels: %w", err)
	}
	defer rows.Close()
	m := map[string]int{}
	for rows.Next() {
		var name string
		var level int
		if err := rows.Scan(&name, &level); err != nil {
			return nil, fmt.Errorf("changefeed: installed levels: %w", err)
		}
		m[name] = level
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("changefeed: installed levels: %w", err)
	}
	return m, nil
}

// sqliteTriggers maps the name of every changefeed trigger installed to the
// statement that created it, as SQLite keeps it (the text as given).
func sqliteTriggers(ctx context.Context, q store.Querier) (map[string]string, error) {
	rows, err := q.QueryContext(ctx, `SELECT name, sql FROM sqlite_master WHERE type = 'trigger' AND name LIKE 'changefeed\_%' ESCAPE '\'`)
	if err != nil {
		return nil, fmt.Errorf("changefeed: installed triggers: %w", err)
	}
	defer rows.Close()
	m := map[string]string{}
	for rows.Next() {
		var name, text string
		if err := rows.Scan(&name, &text); err != nil {
			return nil, fmt.Errorf("changefeed: installed triggers: %w", err)
		}
		m[name] = text
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("changefeed: installed triggers: %w", err)
	}
	return m, nil
}

// pgTriggerSQL is one trigger per watch on PostgreSQL, replaced in place
// (CREATE OR REPLACE TRIGGER, PostgreSQL 14+), so reinstalling is one
// statement per table.
func pgTriggerSQL(w Watch) []string {
	events := make([]string, 0, 3)
	for _, op := range w.ops() {
		e := strings.ToUpper(op)
		if op == "update" && len(w.Columns) > 0 {
			e += " OF " + strings.Join(w.Columns, ", ")
		}
		events = append(events, e)
	}
	return []string{fmt.Sprintf(`CREATE OR REPLACE TRIGGER %s AFTER %s ON %s FOR EACH ROW EXECUTE FUNCTION changefeed_record('%s', '%s')`,
		w.trigger("row"), strings.Join(events, " OR "), w.Table, w.KeyColumn, w.Scope)}
}

// sqliteTriggerSQL is one trigger per operation on SQLite, which has no
// multi-event triggers.
func sqliteTriggerSQL(w Watch, op string) []string {
	name := w.trigger(op)
	event := strings.ToUpper(op)
	if op == "update" && len(w.Columns) > 0 {
		event += " OF " + strings.Join(w.Columns, ", ")
	}
	const at = sqliteNowMillis
	// A NULL key (a nullable key column) records nothing rather than
	// failing the write that fired the trigger.
	insert := func(row, extra string) string {
		return fmt.Sprintf(`INSERT INTO changes (tbl, scope, row_key, at) SELECT '%s', '%s', %s.%s, %s WHERE %s.%s IS NOT NULL%s;`,
			w.Table, w.Scope, row, w.KeyColumn, at, row, w.KeyColumn, extra)
	}
	var body string
	switch op {
	case "insert":
		body = insert("NEW", "")
	case "delete":
		body = insert("OLD", "")
	default:
		body = insert("OLD", "") + " " + insert("NEW", fmt.Sprintf(" AND NEW.%s IS NOT OLD.%s", w.KeyColumn, w.KeyColumn))
	}
	return []string{
		fmt.Sprintf(`DROP TRIGGER IF EXISTS %s`, name),
		fmt.Sprintf(`CREATE TRIGGER %s AFTER %s ON %s FOR EACH ROW BEGIN %s END`, name, event, w.Table, body),
	}
}
