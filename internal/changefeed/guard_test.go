package changefeed_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/latchkey/latchkey/internal/changefeed"
	"github.com/latchkey/latchkey/internal/store"
	"github.com/latchkey/latchkey/internal/store/storetest"
)

// catalogueStamp changes whenever a trigger or function of the change
// feed is (re)created: SQLite's schema version, PostgreSQL's row versions
// of the triggers and the function.
func catalogueStamp(t *testing.T, db *store.DB) string {
	t.Helper()
	q := `PRAGMA schema_version`
	if db.Dialect() == store.Postgres {
		// This schema's only: other tests install triggers in theirs.
		q = `SELECT string_agg(x, ',' ORDER BY x) FROM (
			SELECT t.tgname || ':' || t.xmin::text AS x FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid
			WHERE c.relnamespace = current_schema()::regnamespace AND t.tgname LIKE 'changefeed\_%'
			UNION ALL SELECT proname || ':' || xmin::text FROM pg_proc
			WHERE proname = 'changefeed_record' AND pronamespace = current_schema()::regnamespace) s`
	}
	var s string
	if err := db.QueryRowContext(context.Background(), q).Scan(&s); err != nil {
		t.Fatal(err)
	}
	return s
}

// narrow replaces the gadgets trigger as a release from before store
// migration 0114 does at its restart: its own definition, whose column
// list lacks new_col, put in unconditionally, the level rows untouched.
func narrow(t *testing.T, db *store.DB) {
	t.Helper()
	if db.Dialect() == store.Postgres {
		exec(t, db, `CREATE OR REPLACE TRIGGER changefeed_gadgets_id_row AFTER UPDATE OF old_col OR DELETE ON gadgets
			FOR EACH ROW EXECUTE FUNCTION changefeed_record('id', 'member')`)
		return
	}
	var text string
	if err := db.QueryRowContext(context.Background(), `SELECT sql FROM sqlite_master WHERE name = 'changefeed_gadgets_id_update'`).Scan(&text); err != nil {
		t.Fatal(err)
	}
	older := strings.Replace(text, "UPDATE OF old_col, new_col ON", "UPDATE OF old_col ON", 1)
	if older == text {
		t.Fatalf("unexpected trigger text %s", text)
	}
	exec(t, db, `DROP TRIGGER changefeed_gadgets_id_update`)
	exec(t, db, older)
}

// A replica of a release from before levels restarts during a rolling
// deploy and narrows a trigger: the newer binary's check puts its own
// back, a change of the newer column reaches the feed again, and the
// caches drop what they hold (what the narrower trigger missed is not in
// the changes table). A check that finds the triggers as installed writes
// nothing.
func TestGuardRestoresANarrowedTrigger(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		exec(t, db, `CREATE TABLE gadgets (id TEXT PRIMARY KEY, old_col TEXT NOT NULL DEFAULT '', new_col TEXT NOT NULL DEFAULT '')`)
		exec(t, db, `INSERT INTO gadgets (id) VALUES ('g1')`)
		watches := []changefeed.Watch{{Table: "gadgets", KeyColumn: "id", Scope: changefeed.Member, Columns: []string{"old_col", "new_col"}, NoInsert: true}}
		if err := changefeed.Install(ctx, db, 120, watches); err != nil {
			t.Fatal(err)
		}
		f, rec := start(t, db)
		other, otherRec := start(t, db) // another replica, whose own check comes later
		guard, err := changefeed.NewGuard(db, 120, watches, nil)
		if err != nil {
			t.Fatal(err)
		}
		recorded := func() bool { return newColRecorded(t, db, f, rec) }
		check := func(want bool) {
			t.Helper()
			before := catalogueStamp(t, db)
			got, err := guard.Check(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if repaired := catalogueStamp(t, db) != before; len(got) > 0 != want || repaired != want {
				t.Fatalf("check reported %v and rewrote the catalogue: %v; want %v", got, repaired, want)
			}
		}

		check(false)
		if !recorded() {
			t.Fatal("a change of new_col was not recorded before the narrowing")
		}
		narrow(t, db)
		if recorded() {
			t.Fatal("the narrowed trigger still records new_col: the test does not narrow it")
		}
		if err := other.Sync(ctx); err != nil {
			t.Fatal(err)
		}
		otherRec.take()
		check(true)
		for _, p := range []struct {
			f   *changefeed.Feed
			rec *recorder
		}{{f, rec}, {other, otherRec}} {
			if err := p.f.Sync(ctx); err != nil {
				t.Fatal(err)
			}
			if got := p.rec.take(); !slices.Equal(got, []string{"*"}) {
				t.Fatalf("after the repair a feed dispatched %v, want a reset", got)
			}
		}
		if !recorded() {
			t.Fatal("a change of new_col is not recorded after the check")
		}
		check(false)

		// A newer binary's trigger (recorded at a higher level) is its
		// replicas' to repair; a wider one is left as it is.
		exec(t, db, `UPDATE changefeed_triggers SET level = 121`)
		narrow(t, db)
		check(false)
		exec(t, db, `UPDATE changefeed_triggers SET level = 120`)
		check(true)
		exec(t, db, `ALTER TABLE gadgets ADD COLUMN newest TEXT`)
		wider := []changefeed.Watch{{Table: "gadgets", KeyColumn: "id", Scope: changefeed.Member, Columns: []string{"old_col", "new_col", "newest"}, NoInsert: true}}
		if err := changefeed.Install(ctx, db, 120, wider); err != nil {
			t.Fatal(err)
		}
		check(false)
	})
}

// On PostgreSQL the trigger function is checked too: a body other than
// this binary's is replaced.
func TestGuardRestoresTheTriggerFunction(t *testing.T) {
	t.Parallel()
	db := storetest.Postgres(t)
	ctx := context.Background()
	install(t, db)
	f, rec := start(t, db)
	exec(t, db, `CREATE OR REPLACE FUNCTION changefeed_record() RETURNS trigger LANGUAGE plpgsql AS $f$ BEGIN RETURN NULL; END $f$`)
	exec(t, db, `INSERT INTO widgets (id, owner) VALUES ('w1', 'o1')`)
	if err := f.Fresh(ctx); err != nil {
		t.Fatal(err)
	}
	if got := rec.take(); len(got) != 0 {
		t.Fatalf("the replaced function still records: %v", got)
	}
	// install's watches, at its level.
	guard, err := changefeed.NewGuard(db, 1, []changefeed.Watch{
		{Table: "widgets", KeyColumn: "id", Scope: changefeed.Member, Columns: []string{"id", "owner"}},
		{Table: "widgets", KeyColumn: "owner", Scope: changefeed.Organization, NoInsert: true},
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := guard.Check(ctx); err != nil || !slices.Equal(got, []string{"changefeed_record"}) {
		t.Fatalf("check: %v, %v; want the function repaired", got, err)
	}
	if err := f.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	if got := rec.take(); !slices.Equal(got, []string{"*"}) {
		t.Fatalf("after the repair the feed dispatched %v, want a reset", got)
	}
	exec(t, db, `INSERT INTO widgets (id, owner) VALUES ('w2', 'o2')`)
	if err := f.Fresh(ctx); err != nil {
		t.Fatal(err)
	}
	if got := rec.take(); !slices.Equal(got, []string{"widgets:member:w2"}) {
		t.Fatalf("after the repair: %v", got)
	}
}
