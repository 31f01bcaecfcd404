package changefeed

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/latchkey/latchkey/internal/lograte"
	"github.com/latchkey/latchkey/internal/store"
)

// GuardInterval is how often Guard.Run checks the installed triggers.
const GuardInterval = 10 * time.Second

// Guard puts this binary's triggers back when another binary narrowed
// them while it runs. Install keeps a trigger recorded at a higher level,
// but a release from before store migration 0114 knows nothing of levels:
// restarting during a rolling deploy, it recreates its own triggers
// unconditionally and leaves the level rows as they were. Its
// member_sessions trigger, for one, does not list custom_claims and
// lineage_id, so the newer replicas' caches missed those changes past the
// 1-second promise until their 1-minute expiry, and nothing repaired the
// triggers until a newer replica restarted.
//
// Check compares the installed definitions with the ones this binary
// installs: on PostgreSQL each trigger's events, UPDATE OF columns
// (pg_trigger.tgattr), function and arguments, and the trigger function's
// body (pg_proc.prosrc); on SQLite the text sqlite_master keeps, as
// Install compares it. That is two catalogue reads on PostgreSQL and one
// on SQLite, and no write, when nothing changed. A trigger that records
// at least what this binary's would (a wider column list) is left alone,
// so two builds of one schema whose lists differ only by addition do not
// take turns replacing each other's. Otherwise, unless every such
// trigger's recorded level is above this binary's (a newer replica
// installed it and repairs it itself), Install runs, and then a change
// row of the empty scope tells every process's feed to drop everything
// (the changes the narrower triggers did not record are not in the
// changes table, and the replicas whose own check comes later find the
// triggers repaired and would not know).
type Guard struct {
	db      *store.DB
	level   int
	watches []Watch
	log     *slog.Logger
	// now and every are the wall clock and the period of Run, as the
	// feed's (Feed.now): time.Now and GuardInterval, or a test's fake
	// and a shorter period. The limit of Run's failure lines reads now,
	// so a test that moves the clock a minute sees the next line.
	now   func() time.Time
	every time.Duration
}

// NewGuard returns a guard of the triggers Install(ctx, db, level,
// watches) installs.
func NewGuard(db *store.DB, level int, watches []Watch, log *slog.Logger) (*Guard, error) {
	for _, w := range watches {
		if err := w.validate(); err != nil {
			return nil, err
		}
	}
	if log == nil {
		log = slog.Default()
	}
	return &Guard{db: db, level: level, watches: watches, log: log, now: time.Now, every: GuardInterval}, nil
}

// Run checks every GuardInterval until ctx ends. A check gets at most
// GuardInterval (a database that does not answer must not hold the loop),
// and failures are logged at most once a minute, as the feed's polls are.
func (g *Guard) Run(ctx context.Context) {
	tick := time.NewTicker(g.every)
	defer tick.Stop()
	fails := lograte.Limiter{Every: time.Minute}
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
			cctx, cancel := context.WithTimeout(ctx, g.every)
			_, err := g.Check(cctx)
			cancel()
			if err != nil && ctx.Err() == nil {
				if ok, missed := fails.Allow(g.now()); ok {
					g.log.Warn("change feed: checking the installed triggers failed", "error", err, "failures_not_logged", missed)
				}
			}
		}
	}
}

// Check reinstalls the triggers when one is narrower than, or different
// from, this binary's and not recorded at a higher level. It returns the
// names (triggers, or the PostgreSQL trigger function) that were not as
// this binary installs them, nil when it changed nothing.
func (g *Guard) Check(ctx context.Context) ([]string, error) {
	var stale []string
	var err error
	if g.db.Dialect() == store.Postgres {
		stale, err = g.pgStale(ctx)
	} else {
		stale, err = g.sqliteStale(ctx)
	}
	if err != nil || len(stale) == 0 {
		return nil, err
	}
	levels, err := installedLevels(ctx, g.db.Read())
	if err != nil {
		return nil, err
	}
	if !slices.ContainsFunc(stale, func(name string) bool { l, ok := levels[name]; return !ok || l <= g.level }) {
		return nil, nil // a newer binary's: its replicas check them
	}
	if err := Install(ctx, g.db, g.level, g.watches); err != nil {
		return nil, err
	}
	// After Install committed: every change from here on is recorded, and
	// a process that drops its caches on reading this row reloads the
	// ones made before.
	if _, err := g.db.ExecContext(ctx, `INSERT INTO changes (tbl, scope, row_key, at) VALUES ('changefeed_triggers', '', '', `+
		nowMillis(g.db.Dialect())+`)`); err != nil {
		return nil, fmt.Errorf("changefeed: reset after reinstalling triggers: %w", err)
	}
	g.log.Warn("change feed: triggers installed by another binary (a replica of an older release?) did not record every change this one watches; reinstalled them",
		"triggers", stale, "level", g.level)
	return stale, nil
}

// pgInstalled is one changefeed trigger as pg_trigger has it.
type pgInstalled struct {
	tgtype  int
	args    []string
	fn      string
	cols    []string // of UPDATE OF, sorted; none: every column
	enabled bool
}

// pg_trigger.tgtype bits (PostgreSQL's include/catalog/pg_trigger.h).
const (
	tgRow     = 1 << 0
	tgBefore  = 1 << 1
	tgInsert  = 1 << 2
	tgDelete  = 1 << 3
	tgUpdate  = 1 << 4
	tgInstead = 1 << 6
)

var pgOpBits = map[string]int{"insert": tgInsert, "update": tgUpdate, "delete": tgDelete}

// pgStale names this binary's triggers (and the function) whose installed
// definition records less than, or other than, what it installs.
func (g *Guard) pgStale(ctx context.Context) ([]string, error) {
	q := g.db.Read()
	installed := map[string]pgInstalled{}
	rows, err := q.QueryContext(ctx, `SELECT t.tgname, t.tgtype, t.tgargs, p.proname, t.tgenabled <> 'D',
			COALESCE((SELECT string_agg(a.attname::text, ',' ORDER BY a.attname) FROM pg_attribute a
				WHERE a.attrelid = t.tgrelid AND a.attnum = ANY (t.tgattr)), '')
		FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid JOIN pg_proc p ON p.oid = t.tgfoid
		WHERE c.relnamespace = (SELECT oid FROM pg_namespace WHERE nspname = current_schema())
			AND NOT t.tgisinternal AND t.tgname LIKE 'changefeed\_%'`)
	if err != nil {
		return nil, fmt.Errorf("changefeed: installed triggers: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var name, cols string
		var args []byte
		var t pgInstalled
		if err := rows.Scan(&name, &t.tgtype, &args, &t.fn, &t.enabled, &cols); err != nil {
			return nil, fmt.Errorf("changefeed: installed triggers: %w", err)
		}
		t.args = strings.Split(strings.TrimSuffix(string(args), "\x00"), "\x00")
		if cols != "" {
			t.cols = strings.Split(cols, ",")
		}
		installed[name] = t
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("changefeed: installed triggers: %w", err)
	}
	var stale []string
	var body string
	err = q.QueryRowContext(ctx, `SELECT prosrc FROM pg_proc WHERE proname = $1
		AND pronamespace = (SELECT oid FROM pg_namespace WHERE nspname = current_schema())`, pgFunctionName).Scan(&body)
	if err := store.MapError(err); err != nil && !errors.Is(err, store.ErrNotFound) {
		return nil, fmt.Errorf("changefeed: installed trigger function: %w", err)
	}
	if body != pgFunctionBody() {
		stale = append(stale, pgFunctionName)
	}
	for _, w := range g.watches {
		if t, ok := installed[w.trigger("row")]; !ok || !t.covers(w) {
			stale = append(stale, w.trigger("row"))
		}
	}
	return stale, nil
}

// covers reports whether t records every change w's trigger records, as
// w's does: an AFTER row trigger of changefeed_record with w's key column
// and scope, on every event of w, on an update of at least w's columns.
func (t pgInstalled) covers(w Watch) bool {
	if !t.enabled || t.fn != pgFunctionName || t.tgtype&(tgRow|tgBefore|tgInstead) != tgRow ||
		!slices.Equal(t.args, []string{w.KeyColumn, string(w.Scope)}) {
		return false
	}
	for _, op := range w.ops() {
		if t.tgtype&pgOpBits[op] == 0 {
			return false
		}
	}
	return coversColumns(t.cols, w.Columns)
}

// coversColumns reports whether an UPDATE OF list got fires on every
// update that the list want fires on (an empty list: any update).
func coversColumns(got, want []string) bool {
	if len(got) == 0 {
		return true
	}
	if len(want) == 0 {
		return false
	}
	for _, c := range want {
		if !slices.Contains(got, c) {
			return false
		}
	}
	return true
}

// pgFunctionBody is pgFunction's body as pg_proc.prosrc keeps it: the text
// between its dollar quotes.
func pgFunctionBody() string {
	s := pgFunction[strings.Index(pgFunction, "$f$")+3:]
	return s[:strings.LastIndex(s, "$f$")]
}

// sqliteUpdateOf finds the column list of an UPDATE trigger's text (none:
// any update).
var sqliteUpdateOf = regexp.MustCompile(`^CREATE TRIGGER \S+ AFTER UPDATE (?:OF ([a-z0-9_, ]+) )?ON `)

// sqliteStale names this binary's triggers whose installed text is not
// the one it installs, except an update trigger that differs only by a
// wider column list.
func (g *Guard) sqliteStale(ctx context.Context) ([]string, error) {
	installed, err := sqliteTriggers(ctx, g.db.Read())
	if err != nil {
		return nil, err
	}
	var stale []string
	for _, w := range g.watches {
		for _, op := range w.ops() {
			name := w.trigger(op)
			got, ok := installed[name]
			if !ok {
				stale = append(stale, name)
				continue
			}
			if got == sqliteTriggerSQL(w, op)[1] {
				continue
			}
			if m := sqliteUpdateOf.FindStringSubmatch(got); op == "update" && m != nil {
				wider := w
				wider.Columns = nil
				if m[1] != "" {
					wider.Columns = strings.Split(m[1], ", ")
				}
				if got == sqliteTriggerSQL(wider, op)[1] && coversColumns(wider.Columns, w.Columns) {
					continue
				}
			}
			stale = append(stale, name)
		}
	}
	return stale, nil
}
