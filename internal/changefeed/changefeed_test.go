package changefeed_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/latchkey/latchkey/internal/changefeed"
	"github.com/latchkey/latchkey/internal/store"
	"github.com/latchkey/latchkey/internal/store/storetest"
)

// recorder collects dispatched events.
type recorder struct {
	mu  sync.Mutex
	evs []changefeed.Event
}

func (r *recorder) add(ev changefeed.Event) { r.mu.Lock(); r.evs = append(r.evs, ev); r.mu.Unlock() }

func (r *recorder) take() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []string
	for _, ev := range r.evs {
		if ev.All() {
			out = append(out, "*")
			continue
		}
		out = append(out, ev.Table+":"+string(ev.Scope)+":"+ev.Key)
	}
	r.evs = nil
	return out
}

func setup(t *testing.T, db *store.DB) (*changefeed.Feed, *recorder) {
	t.Helper()
	install(t, db)
	return start(t, db)
}

// install creates the watched table and its triggers.
func install(t *testing.T, db *store.DB) {
	t.Helper()
	ctx := context.Background()
	if _, err := db.ExecContext(ctx, `CREATE TABLE widgets (id TEXT PRIMARY KEY, owner TEXT, note TEXT NOT NULL DEFAULT '')`); err != nil {
		t.Fatal(err)
	}
	watches := []changefeed.Watch{
		{Table: "widgets", KeyColumn: "id", Scope: changefeed.Member, Columns: []string{"id", "owner"}},
		{Table: "widgets", KeyColumn: "owner", Scope: changefeed.Organization, NoInsert: true},
	}
	// Installing twice replaces the triggers instead of failing or doubling them.
	for range 2 {
		if err := changefeed.Install(ctx, db, 1, watches); err != nil {
			t.Fatal(err)
		}
	}
}

// start returns a started feed that records what it dispatches.
func start(t *testing.T, db *store.DB) (*changefeed.Feed, *recorder) {
	t.Helper()
	return startFeed(t, changefeed.New(db, nil))
}

// startFeed is start with a feed the test made (a fake clock set first).
func startFeed(t *testing.T, f *changefeed.Feed) (*changefeed.Feed, *recorder) {
	t.Helper()
	rec := &recorder{}
	f.Subscribe(rec.add)
	if err := f.Sync(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got := rec.take(); !slices.Equal(got, []string{"*"}) {
		t.Fatalf("start dispatched %v, want a reset", got)
	}
	return f, rec
}

func exec(t *testing.T, q store.Querier, sql string, args ...any) {
	t.Helper()
	if _, err := q.ExecContext(context.Background(), sql, args...); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
}

func TestTriggersRecordEveryWatchedChange(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		f, rec := setup(t, db)
		steps := []struct {
			sql  string
			args []any
			want []string
		}{
			{`INSERT INTO widgets (id, owner) VALUES ('w1', 'o1')`, nil, []string{"widgets:member:w1"}},
			// Only the listed columns fire the first watch's update trigger;
			// the second watch has no column list.
			{`UPDATE widgets SET note = 'x' WHERE id = 'w1'`, nil, []string{"widgets:organization:o1"}},
			// A changed key records the old and the new one.
			{`UPDATE widgets SET owner = 'o2' WHERE id = 'w1'`, nil, []string{"widgets:member:w1", "widgets:organization:o1", "widgets:organization:o2"}},
			// A NULL key records nothing and does not fail the write.
			{`UPDATE widgets SET owner = NULL WHERE id = 'w1'`, nil, []string{"widgets:member:w1", "widgets:organization:o2"}},
			{`DELETE FROM widgets WHERE id = 'w1'`, nil, []string{"widgets:member:w1"}},
		}
		for _, s := range steps {
			exec(t, db, s.sql, s.args...)
			// The write moved db.Writes(), so Fresh reads at once.
			if err := f.Fresh(ctx); err != nil {
				t.Fatal(err)
			}
			got := rec.take()
			slices.Sort(got)
			if !slices.Equal(got, s.want) {
				t.Fatalf("%s: dispatched %v, want %v", s.sql, got, s.want)
			}
		}
		// Nothing new: Fresh does not read, Sync finds nothing.
		if err := f.Sync(ctx); err != nil {
			t.Fatal(err)
		}
		if got := rec.take(); len(got) != 0 {
			t.Fatalf("repeat sync dispatched %v", got)
		}
	})
}

func TestRolledBackChangesAreNotDispatched(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		f, rec := setup(t, db)
		_ = db.Tx(ctx, func(q store.Querier) error {
			exec(t, q, `INSERT INTO widgets (id, owner) VALUES ('w1', 'o1')`)
			return context.Canceled
		})
		exec(t, db, `INSERT INTO widgets (id, owner) VALUES ('w2', 'o1')`)
		if err := f.Sync(ctx); err != nil {
			t.Fatal(err)
		}
		if got := rec.take(); !slices.Equal(got, []string{"widgets:member:w2"}) {
			t.Fatalf("dispatched %v", got)
		}
	})
}

// On PostgreSQL a change can become visible after a newer one: its id was
// allocated first, its transaction committed later. The feed must still
// deliver it.
func TestLateCommitIsDelivered(t *testing.T) {
	db := storetest.Postgres(t)
	ctx := context.Background()
	f, rec := setup(t, db)
	slow := make(chan struct{})
	done := make(chan error, 1)
	wrote := make(chan struct{})
	go func() {
		done <- db.Tx(ctx, func(q store.Querier) error {
			if _, err := q.ExecContext(ctx, `INSERT INTO widgets (id, owner) VALUES ('slow', 'o1')`); err != nil {
				return err
			}
			close(wrote)
			<-slow
			return nil
		})
	}()
	<-wrote
	exec(t, db, `INSERT INTO widgets (id, owner) VALUES ('fast', 'o1')`)
	if err := f.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	if got := rec.take(); !slices.Equal(got, []string{"widgets:member:fast"}) {
		t.Fatalf("first sync dispatched %v", got)
	}
	close(slow)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if err := f.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	if got := rec.take(); !slices.Equal(got, []string{"widgets:member:slow"}) {
		t.Fatalf("after the slow commit dispatched %v, want the slow change", got)
	}
	if err := f.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	if got := rec.take(); len(got) != 0 {
		t.Fatalf("the gap was delivered twice: %v", got)
	}
}

// Sweep drops the change rows older than Keep by the database's clock,
// which wrote their at, and keeps the rest: the row a trigger just wrote
// and one a minute short of Keep.
func TestSweepKeepsRecentChanges(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		f, _ := setup(t, db)
		exec(t, db, `INSERT INTO widgets (id, owner) VALUES ('w1', 'o1')`)
		// The database's clock in Unix milliseconds, written out here
		// rather than taken from the package.
		now := `CAST(unixepoch('subsec') * 1000 AS INTEGER)`
		if db.Dialect() == store.Postgres {
			now = `(extract(epoch from clock_timestamp()) * 1000)::bigint`
		}
		minute := time.Minute.Milliseconds()
		exec(t, db, `INSERT INTO changes (tbl, scope, row_key, at) VALUES ('widgets', 'member', 'ancient', 1)`)
		exec(t, db, fmt.Sprintf(`INSERT INTO changes (tbl, scope, row_key, at) VALUES ('widgets', 'member', 'old', %s - %d)`,
			now, changefeed.Keep.Milliseconds()+minute))
		exec(t, db, fmt.Sprintf(`INSERT INTO changes (tbl, scope, row_key, at) VALUES ('widgets', 'member', 'kept', %s - %d)`,
			now, changefeed.Keep.Milliseconds()-minute))
		if err := f.Sweep(ctx); err != nil {
			t.Fatal(err)
		}
		rows, err := db.Read().QueryContext(ctx, `SELECT row_key FROM changes ORDER BY row_key`)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		var left []string
		for rows.Next() {
			var k string
			if err := rows.Scan(&k); err != nil {
				t.Fatal(err)
			}
			left = append(left, k)
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
		if strings.Join(left, ",") != "kept,w1" {
			t.Fatalf("changes left: %v, want kept and w1", left)
		}
	})
}

// On SQLite a start that finds the triggers installed as written leaves the
// schema alone (rewriting it made every connection parse it again), and a
// trigger whose text differs is still replaced.
func TestInstallKeepsCurrentSQLiteTriggers(t *testing.T) {
	ctx := context.Background()
	db := storetest.SQLite(t)
	schemaVersion := func() int {
		t.Helper()
		var v int
		if err := db.QueryRowContext(ctx, `PRAGMA schema_version`).Scan(&v); err != nil {
			t.Fatal(err)
		}
		return v
	}
	install(t, db)
	watches := []changefeed.Watch{{Table: "widgets", KeyColumn: "id", Scope: changefeed.Member, Columns: []string{"id", "owner"}}}
	before := schemaVersion()
	if err := changefeed.Install(ctx, db, 1, watches); err != nil {
		t.Fatal(err)
	}
	if after := schemaVersion(); after != before {
		t.Fatalf("reinstalling unchanged triggers moved the schema version from %d to %d", before, after)
	}
	exec(t, db, `DROP TRIGGER changefeed_widgets_id_delete`)
	exec(t, db, `CREATE TRIGGER changefeed_widgets_id_delete AFTER DELETE ON widgets FOR EACH ROW BEGIN SELECT 1; END`)
	if err := changefeed.Install(ctx, db, 1, watches); err != nil {
		t.Fatal(err)
	}
	f, rec := start(t, db)
	exec(t, db, `INSERT INTO widgets (id, owner) VALUES ('w1', 'o1')`)
	exec(t, db, `DELETE FROM widgets WHERE id = 'w1'`)
	if err := f.Fresh(ctx); err != nil {
		t.Fatal(err)
	}
	got := rec.take()
	slices.Sort(got)
	// The insert, and the delete through the replaced trigger and the
	// owner watch's own.
	if want := []string{"widgets:member:w1", "widgets:member:w1", "widgets:organization:o1"}; !slices.Equal(got, want) {
		t.Fatalf("dispatched %v, want %v (the stale trigger replaced)", got, want)
	}
}

// During a rolling deploy a replica of the older release restarts after
// the newer one installed its triggers: the older, narrower definition (a
// column list without the newer columns) does not replace the newer one,
// which a binary as new or newer still can.
func TestInstallKeepsANewerBinarysTriggers(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		exec(t, db, `CREATE TABLE gadgets (id TEXT PRIMARY KEY, old_col TEXT NOT NULL DEFAULT '', new_col TEXT NOT NULL DEFAULT '')`)
		exec(t, db, `INSERT INTO gadgets (id) VALUES ('g1')`)
		watch := func(cols ...string) []changefeed.Watch {
			return []changefeed.Watch{{Table: "gadgets", KeyColumn: "id", Scope: changefeed.Member, Columns: cols, NoInsert: true}}
		}
		newer, older := watch("old_col", "new_col"), watch("old_col")
		f, rec := start(t, db)
		recorded := func() bool { return newColRecorded(t, db, f, rec) }
		for i, step := range []struct {
			level   int
			watches []changefeed.Watch
			want    bool
		}{
			{level: 120, watches: newer, want: true},
			{level: 118, watches: older, want: true},  // the older replica restarts: the newer trigger stays
			{level: 120, watches: newer, want: true},  // the newer one restarts: nothing to do
			{level: 121, watches: older, want: false}, // a newer binary may narrow it
			{level: 121, watches: newer, want: true},  // at an equal level the starting binary's wins
		} {
			if err := changefeed.Install(ctx, db, step.level, step.watches); err != nil {
				t.Fatal(err)
			}
			if got := recorded(); got != step.want {
				t.Fatalf("step %d (level %d, columns %v): a change of new_col recorded %v, want %v",
					i, step.level, step.watches[0].Columns, got, step.want)
			}
		}
	})
}

// newColRecorded says whether a change of gadgets.new_col (row g1) reaches
// f: the column a newer binary's trigger watches and an older one's
// does not.
func newColRecorded(t *testing.T, db *store.DB, f *changefeed.Feed, rec *recorder) bool {
	t.Helper()
	exec(t, db, `UPDATE gadgets SET new_col = new_col || 'x' WHERE id = 'g1'`)
	if err := f.Fresh(context.Background()); err != nil {
		t.Fatal(err)
	}
	return slices.Equal(rec.take(), []string{"gadgets:member:g1"})
}
