package store_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/latchkey/latchkey/internal/store"
	"github.com/latchkey/latchkey/internal/store/storetest"
)

// A database URL Open does not recognise used to become a SQLite file
// whose path held the URL, password included, and the server ran on that
// empty database. Open now refuses it, without the password in the error
// and without creating anything.
func TestOpenRefusesUnknownSchemes(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir) // a refused value would have become a file here
	for _, dsn := range []string{
		"postgress://u:hunter2@127.0.0.1:5432/db",
		"mysql://u:hunter2@127.0.0.1/db",
		"postgress://u:hun@ter2@127.0.0.1/db?password=hunter2",
		"postgres:hunter2@127.0.0.1/db",
		"host=127.0.0.1 user=u password=hunter2 dbname=db",
		" dbname = db password=hunter2",
	} {
		db, err := store.Open(context.Background(), dsn)
		if err == nil {
			db.Close()
			t.Errorf("Open(%q) succeeded", dsn)
			continue
		}
		if msg := err.Error(); strings.Contains(msg, "hunter2") || strings.Contains(msg, "ter2") {
			t.Errorf("Open(%q): the error shows the password: %v", dsn, err)
		}
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Errorf("refused URLs left %v behind", ents)
	}
	_, err := store.Open(context.Background(), "postgress://u:hunter2@127.0.0.1/db")
	if err == nil || !strings.Contains(err.Error(), `"postgress"`) || !strings.Contains(err.Error(), "postgres://") {
		t.Errorf("the error does not name the scheme and what to write instead: %v", err)
	}
}

// What a SQLite value may be: a path, or one behind file: or sqlite: (in
// any case), as before.
func TestOpenSQLiteForms(t *testing.T) {
	dir := t.TempDir()
	for _, dsn := range []string{
		filepath.Join(dir, "a.db"),
		"file:" + filepath.Join(dir, "b.db") + "?mode=rwc",
		"FILE:" + filepath.Join(dir, "c.db"),
		"file://" + filepath.Join(dir, "d.db"),
		"sqlite:" + filepath.Join(dir, "e.db"),
	} {
		db, err := store.Open(context.Background(), dsn)
		if err != nil {
			t.Errorf("Open(%q): %v", dsn, err)
			continue
		}
		if db.Dialect() != store.SQLite {
			t.Errorf("Open(%q) opened %s", dsn, db.Dialect())
		}
		db.Close()
	}
	for _, f := range []string{"a.db", "b.db", "c.db", "d.db", "e.db"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Errorf("%s: %v", f, err)
		}
	}
}

// The PostgreSQL schemes match in any case: POSTGRES:// is PostgreSQL,
// not a SQLite file named after it.
func TestOpenPostgresSchemeIgnoresCase(t *testing.T) {
	dsn := os.Getenv(storetest.EnvPostgres)
	if dsn == "" {
		t.Skip(storetest.EnvPostgres + " not set")
	}
	t.Chdir(t.TempDir())
	scheme, rest, ok := strings.Cut(dsn, "://")
	if !ok {
		t.Fatalf("%s is not a URL", storetest.EnvPostgres)
	}
	for _, s := range []string{strings.ToUpper(scheme), "PostgreSQL"} {
		db, err := store.Open(context.Background(), s+"://"+rest)
		if err != nil {
			t.Fatalf("Open(%s://…): %v", s, err)
		}
		if db.Dialect() != store.Postgres {
			t.Errorf("Open(%s://…) opened %s", s, db.Dialect())
		}
		db.Close()
	}
}

// ParseDSN's targets are what the drivers are given.
func TestParseDSN(t *testing.T) {
	for in, want := range map[string]struct {
		d      store.Dialect
		target string
	}{
		"POSTGRES://u:p@h/db?sslmode=disable": {store.Postgres, "postgres://u:p@h/db?sslmode=disable"},
		" postgresql://h/db ":                 {store.Postgres, "postgresql://h/db"},
		"./data/latchkey.db":                  {store.SQLite, "./data/latchkey.db"},
		"file:/var/lib/lk.db?_pragma=x":       {store.SQLite, "/var/lib/lk.db"},
		"sqlite:lk.db":                        {store.SQLite, "lk.db"},
		`C:\data\lk.db`:                       {store.SQLite, `C:\data\lk.db`},
		"./host=x.db":                         {store.SQLite, "./host=x.db"},
	} {
		d, target, err := store.ParseDSN(in)
		if err != nil || d != want.d || target != want.target {
			t.Errorf("ParseDSN(%q) = %s, %q, %v; want %s, %q", in, d, target, err, want.d, want.target)
		}
	}
	for _, in := range []string{"", "  ", "file:", "file:?mode=memory"} {
		if d, _, err := store.ParseDSN(in); err == nil {
			t.Errorf("ParseDSN(%q) = %s, want an error", in, d)
		}
	}
}

// A password holding '@', '/', '?' or '#' as is made pgx and net/url read
// the URL differently: pgx took the tail of "S3cr@tPa55w0rd" for the host,
// sent it to DNS and printed it ("lookup tPa55w0rd@db.invalid: no such
// host"). ParseDSN, and so Open and config.Validate, refuses such a URL
// before anything connects, asking for the character percent-encoded and
// naming no part of the URL.
func TestParseDSNRefusesAmbiguousUserinfo(t *testing.T) {
	t.Chdir(t.TempDir())
	for _, dsn := range []string{
		"postgres://latchkey:S3cr@tPa55w0rd@db.invalid/latchkey",
		"postgresql://latchkey:p@ss:w0rd@127.0.0.1:1/latchkey",
		"postgres://latchkey:Pa55/w0rd@127.0.0.1:1/latchkey",
		"postgres://latchkey:Pa55?w0rd@127.0.0.1:1/latchkey",
		"postgres://latchkey:Pa55#w0rd@127.0.0.1:1/latchkey",
		"postgres://127.0.0.1:1?password=Pa55@w0rd",
	} {
		if _, _, err := store.ParseDSN(dsn); err == nil || !strings.Contains(err.Error(), "%40") {
			// Not opened: pgx would send the password's tail to DNS.
			t.Errorf("ParseDSN(%q) = %v, want a refusal asking for %%40", dsn, err)
			continue
		}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		db, err := store.Open(ctx, dsn)
		cancel()
		if err == nil {
			db.Close()
			t.Errorf("Open(%q) succeeded", dsn)
			continue
		}
		for _, part := range []string{"w0rd", "tPa55", "ss:"} {
			if strings.Contains(err.Error(), part) {
				t.Errorf("Open(%q): the error shows the password: %v", dsn, err)
			}
		}
	}
	for _, dsn := range []string{
		"postgres://latchkey:S3cr%40tPa55w0rd@db.invalid/latchkey",
		"postgres://db.invalid/latchkey?user=me@corp&password=p@ss",
		"postgres://u:p@h1:5432,h2:5433/db?sslmode=require",
		"postgres://u@[::1]:5432/db",
		"postgres://h",
	} {
		if _, _, err := store.ParseDSN(dsn); err != nil {
			t.Errorf("ParseDSN(%q): %v", dsn, err)
		}
	}
}
