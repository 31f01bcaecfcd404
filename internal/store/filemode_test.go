package store_test

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/latchkey/latchkey/internal/store"
)

// A new SQLite database, and the WAL file SQLite makes beside it, can be
// read by their owner only: they hold hashed tokens and sealed secrets. A
// database file that already exists keeps the mode its operator gave it.
func TestNewSQLiteFilesArePrivate(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := t.TempDir()
	path := filepath.Join(dir, "new.db")
	db, err := store.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.ExecContext(ctx, `CREATE TABLE t (x INTEGER)`); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{path, path + "-wal"} {
		if m := mode(t, p); m != 0o600 {
			t.Errorf("%s: mode %o, want 600", filepath.Base(p), m)
		}
	}
	db.Close()

	shared := filepath.Join(dir, "shared.db")
	if err := os.WriteFile(shared, nil, 0o640); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(shared, 0o640); err != nil {
		t.Fatal(err)
	}
	db, err = store.Open(ctx, shared)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if m := mode(t, shared); m != 0o640 {
		t.Errorf("an existing database's mode became %o, want 640", m)
	}
}

func mode(t *testing.T, path string) fs.FileMode {
	t.Helper()
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return st.Mode().Perm()
}
