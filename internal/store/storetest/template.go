package storetest

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/latchkey/latchkey/internal/store"
)

// A test process migrates one SQLite database per Kind once and every
// test gets a copy of its file: running the ~100 core migrations took
// ~50 ms per database, for ~2,000 databases per `make test` (and apptest's
// kind adds every module's migrations and the change-feed triggers). The
// copy is still opened with store.Open and migrated, which finds every
// version recorded and applies nothing (it would apply a migration the
// template lacked).
//
// The template is kept as bytes, not as a file: storetest has no TestMain
// to remove a process-wide file at exit, so the file is removed as soon as
// it has been read and nothing is left behind in the temp directory.
type sqliteTemplate struct {
	once  sync.Once
	bytes []byte
	err   error
}

// templateBytes returns k's migrated template file, building it on the
// first call.
func (k *Kind) templateBytes() ([]byte, error) {
	k.sqlite.once.Do(func() {
		k.sqlite.bytes, k.sqlite.err = buildTemplate(context.Background(), k)
	})
	return k.sqlite.bytes, k.sqlite.err
}

// buildTemplate migrates a new database as k in a temp directory of its
// own, closes it and reads its file.
func buildTemplate(ctx context.Context, k *Kind) (_ []byte, err error) {
	dir, err := os.MkdirTemp("", fmt.Sprintf("latchkey-storetest-%d-", os.Getpid()))
	if err != nil {
		return nil, fmt.Errorf("storetest: template dir: %w", err)
	}
	defer func() {
		if rerr := os.RemoveAll(dir); rerr != nil && err == nil {
			err = fmt.Errorf("storetest: remove template dir: %w", rerr)
		}
	}()
	path := filepath.Join(dir, "template.db")
	db, err := store.Open(ctx, path)
	if err != nil {
		return nil, fmt.Errorf("storetest: open template: %w", err)
	}
	if err := k.Migrate(ctx, db); err != nil {
		db.Close()
		return nil, fmt.Errorf("storetest: migrate template: %w", err)
	}
	// Closing the last connection checkpoints the WAL into the file and
	// deletes it. A log left behind would hold migrations the file lacks,
	// and a copy of the file alone would silently miss them.
	if err := db.Close(); err != nil {
		return nil, fmt.Errorf("storetest: close template: %w", err)
	}
	for _, suffix := range []string{"-wal", "-shm"} {
		if fi, err := os.Stat(path + suffix); err == nil && fi.Size() > 0 {
			return nil, fmt.Errorf("storetest: template's %s file outlived its close (%d bytes)", suffix, fi.Size())
		}
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("storetest: read template: %w", err)
	}
	return b, nil
}

// copyTemplate writes a copy of k's migrated template to a new file in
// t.TempDir() and returns its path. Mode 0600, as store creates its files:
// they hold hashed tokens and sealed secrets.
func (k *Kind) copyTemplate(t testing.TB) string {
	t.Helper()
	b, err := k.templateBytes()
	if err != nil {
		t.Fatalf("%v", err)
	}
	path := filepath.Join(t.TempDir(), "latchkey.db")
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatalf("storetest: copy template: %v", err)
	}
	return path
}
