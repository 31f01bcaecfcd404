package store

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"
)

func openTestSQLite(t *testing.T) *DB {
	t.Helper()
	db, err := Open(context.Background(), filepath.Join(t.TempDir(), "stmts.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// waitPrepared waits until the cache keeps n statements.
func waitPrepared(t *testing.T, c *stmtCache, n int) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); c.len() < n; time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%d statements prepared, want %d", c.len(), n)
		}
	}
}

// A text run a second time is prepared in the background and then runs
// prepared: on the writer, inside transactions, and on the readers. A
// second run inside a transaction (whose prepare needs the writer that
// transaction holds) must not wait for it. Prepared statements survive a
// schema change, and results stay right.
func TestStatementsArePreparedOnTheirSecondRun(t *testing.T) {
	ctx := context.Background()
	db := openTestSQLite(t)
	if _, err := db.ExecContext(ctx, `CREATE TABLE kv (k TEXT PRIMARY KEY, v INTEGER NOT NULL)`); err != nil {
		t.Fatal(err)
	}
	const ins = `INSERT INTO kv (k, v) VALUES ($1, $2)`
	const get = `SELECT v FROM kv WHERE k = $1`
	done := make(chan error, 1)
	go func() {
		done <- db.Tx(ctx, func(q Querier) error {
			for i, k := range []string{"a", "b", "c"} {
				if _, err := q.ExecContext(ctx, ins, k, i); err != nil {
					return err
				}
			}
			return nil
		})
	}()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("a transaction waited for the background prepare of its own statement")
	}
	waitPrepared(t, db.wc, 1)

	hits := db.wc.hits.Load()
	if err := db.Tx(ctx, func(q Querier) error {
		_, err := q.ExecContext(ctx, ins, "d", 3)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := db.ExecContext(ctx, ins, "e", 4); err != nil {
		t.Fatal(err)
	}
	if got := db.wc.hits.Load() - hits; got != 2 {
		t.Fatalf("%d prepared runs on the writer, want 2 (in a transaction and outside)", got)
	}

	read := func(k string) int {
		t.Helper()
		var v int
		if err := db.Read().QueryRowContext(ctx, get, k).Scan(&v); err != nil {
			t.Fatalf("read %s: %v", k, err)
		}
		return v
	}
	read("a")
	read("b")
	waitPrepared(t, db.rc, 1)
	if _, err := db.ExecContext(ctx, `ALTER TABLE kv ADD COLUMN note TEXT NOT NULL DEFAULT ''`); err != nil {
		t.Fatal(err)
	}
	if _, err := db.ExecContext(ctx, `UPDATE kv SET v = 40 WHERE k = 'e'`); err != nil {
		t.Fatal(err)
	}
	hits = db.rc.hits.Load()
	if v := read("e"); v != 40 {
		t.Fatalf("prepared read after a schema change and an update: %d, want 40", v)
	}
	if db.rc.hits.Load() == hits {
		t.Fatal("the reader's statement did not run prepared")
	}
}

// The cache stops growing at its bound; texts past it run unprepared.
func TestStatementCacheIsBounded(t *testing.T) {
	ctx := context.Background()
	db := openTestSQLite(t)
	c := db.rc
	c.mu.Lock()
	for i := range maxStmts {
		c.stmts[string(rune('a'+i%26))+time.Duration(i).String()] = nil
	}
	c.mu.Unlock()
	for range 3 {
		var one int
		if err := db.Read().QueryRowContext(ctx, `SELECT 1`).Scan(&one); err != nil || one != 1 {
			t.Fatal(one, err)
		}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.stmts) != maxStmts || len(c.pending) != 0 {
		t.Fatalf("%d kept, %d pending past the bound", len(c.stmts), len(c.pending))
	}
	clear(c.stmts) // nil entries: nothing for Close to close
}

// Close waits for the prepares it started in the background: none is
// still at work once Close has returned. One that was would open the
// database's log again after Close, beside files being removed.
func TestCloseWaitsForBackgroundPrepares(t *testing.T) {
	ctx := context.Background()
	db, err := Open(ctx, filepath.Join(t.TempDir(), "stmts.db"))
	if err != nil {
		t.Fatal(err)
	}
	for i := range 50 {
		q := fmt.Sprintf(`SELECT %d`, i)
		for range 2 { // the second run starts the prepare
			var n int
			if err := db.Read().QueryRowContext(ctx, q).Scan(&n); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	db.rc.mu.Lock()
	pending, kept := len(db.rc.pending), len(db.rc.stmts)
	db.rc.mu.Unlock()
	if pending != 0 || kept != 0 {
		t.Fatalf("after Close: %d prepares still running, %d statements kept", pending, kept)
	}
}
