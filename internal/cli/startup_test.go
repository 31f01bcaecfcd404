package cli

import (
	"bytes"
	"context"
	"errors"
	"io"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/latchkey/latchkey/internal/app"
	"github.com/latchkey/latchkey/internal/config"
	"github.com/latchkey/latchkey/internal/secretbox"
)

// syncBuffer is a bytes.Buffer a running server may write while the test reads.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// running is a serve or dev command started by startServer.
type running struct {
	out, errb *syncBuffer
	addr      string // what it listens on, from its log
	stop      func() // stops it and waits (also at the test's end)
}

var listeningRE = regexp.MustCompile(`latchkey listening.*?"?addr"?[=:]"?([0-9.:\[\]a-f]+)`)

// startServer runs args until the test ends, and returns once it listens.
func startServer(t *testing.T, env map[string]string, args ...string) *running {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	r := &running{out: &syncBuffer{}, errb: &syncBuffer{}}
	done := make(chan int, 1)
	go func() {
		done <- Run(ctx, Env{Args: args, Stdout: r.out, Stderr: r.errb,
			Lookup: func(k string) (string, bool) { v, ok := env[k]; return v, ok }})
	}()
	var once sync.Once
	r.stop = func() {
		once.Do(func() {
			cancel()
			select {
			case <-done:
			case <-time.After(15 * time.Second):
				t.Errorf("%v did not stop", args)
			}
		})
	}
	t.Cleanup(r.stop)
	deadline := time.After(60 * time.Second)
	for {
		if m := listeningRE.FindStringSubmatch(r.errb.String()); m != nil {
			r.addr = m[1]
			return r
		}
		select {
		case code := <-done:
			t.Fatalf("%v exited %d before listening: %s", args, code, r.errb.String())
		case <-deadline:
			t.Fatalf("%v did not listen: %s", args, r.errb.String())
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// Outside dev mode, a PostgreSQL database never takes its key from
// ./data/encryption.key: that file is `latchkey dev`'s, and a production
// serve or CLI run from a checkout where `make run` once ran sealed the
// production database with it. Dev mode still reads it, and a SQLite
// database still takes the file beside it (README).
func TestPostgresNeverReadsTheDevKeyFile(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	devKey := secretbox.NewKey()
	if err := os.MkdirAll("data", 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join("data", devKeyFile), []byte(devKey+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	pg := "postgres://latchkey@127.0.0.1:1/latchkey" // nothing listens: only the key is looked at
	for _, args := range [][]string{{"migrate"}, {"project", "list"}, {"serve", "--addr", "127.0.0.1:0"}} {
		var out, errb bytes.Buffer
		code := Run(context.Background(), Env{Args: args, Stdout: &out, Stderr: &errb,
			Lookup: func(k string) (string, bool) { return pg, k == "LATCHKEY_DATABASE_URL" }})
		if code == 0 || !strings.Contains(errb.String(), "LATCHKEY_ENCRYPTION_KEY is required") {
			t.Errorf("%v on PostgreSQL without LATCHKEY_ENCRYPTION_KEY: exit %d, stderr %q", args, code, errb.String())
		}
	}

	cfg := config.Defaults()
	cfg.DatabaseURL = pg
	if _, err := resolveKey(&cfg, false); !errors.Is(err, app.ErrNoEncryptionKey) || cfg.EncryptionKey != "" {
		t.Errorf("outside dev mode: %v, key taken: %t", err, cfg.EncryptionKey != "")
	}
	cfg.EncryptionKey = ""
	if gen, err := resolveKey(&cfg, true); err != nil || gen != "" || cfg.EncryptionKey != devKey {
		t.Errorf("dev mode on PostgreSQL does not use its key file: generated %q, %v", gen, err)
	}
	cfg = config.Defaults()
	cfg.DatabaseURL = filepath.Join(dir, "data", "latchkey.db")
	if _, err := resolveKey(&cfg, false); err != nil || cfg.EncryptionKey != devKey {
		t.Errorf("SQLite outside dev mode does not use the key file beside it: %v", err)
	}
}

// migrate creates the folder and the database of a fresh SQLite path as
// serve does, so a first setup may start with it. Every other command
// refuses a database that does not exist, creating nothing: a mistyped
// path (lk.dbx) used to become a new, migrated database, sealed with the
// key of the day, and `project list` reported it empty with exit 0.
func TestOnlyMigrateCreatesTheSQLiteDatabase(t *testing.T) {
	env := func(db string) Env {
		vars := map[string]string{"LATCHKEY_DATABASE_URL": db, "LATCHKEY_ENCRYPTION_KEY": testKey}
		return Env{Stdout: io.Discard, Stderr: &bytes.Buffer{},
			Lookup: func(k string) (string, bool) { v, ok := vars[k]; return v, ok }}
	}
	for _, args := range [][]string{{"project", "list"}, {"project", "create", "--name", "Shop"},
		{"project", "rbac", "get", "--project", "project-test-x"}, {"keys", "list", "--project", "project-test-x"},
		{"audit", "--project", "project-test-x"}, {"rekey", "--new-key-file", "/nonexistent"}} {
		root := t.TempDir()
		db := filepath.Join(root, "typo", "lk.dbx")
		e := env(db)
		e.Args = args
		if args[0] == "rekey" {
			key := filepath.Join(root, "new.key")
			writeFile(t, key, secretbox.NewKey())
			e.Args = []string{"rekey", "--new-key-file", key}
		}
		code := Run(context.Background(), e)
		errs := e.Stderr.(*bytes.Buffer).String()
		if code != 1 || !strings.Contains(errs, "no database at "+db) || !strings.Contains(errs, "latchkey migrate") {
			t.Errorf("%v on a missing database: exit %d, stderr %q", args, code, errs)
		}
		if _, err := os.Stat(filepath.Join(root, "typo")); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("%v on a missing database created its folder: %v", args, err)
		}
	}
	// A path holding '@' is likely a PostgreSQL URL without its scheme: it
	// is not echoed.
	e := env("latchkey:hunter2@db.example.com/latchkey")
	e.Args = []string{"project", "list"}
	dir := t.TempDir()
	t.Chdir(dir)
	if code := Run(context.Background(), e); code != 1 || strings.Contains(e.Stderr.(*bytes.Buffer).String(), "hunter2") {
		t.Errorf("missing database with '@': exit %d, stderr %q", code, e.Stderr.(*bytes.Buffer).String())
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Errorf("a missing database left %v behind", ents)
	}

	dir = filepath.Join(t.TempDir(), "fresh", "data")
	db := filepath.Join(dir, "latchkey.db")
	e = env(db)
	e.Args = []string{"migrate"}
	if code := Run(context.Background(), e); code != 0 {
		t.Fatalf("migrate on a fresh folder: exit %d, stderr %q", code, e.Stderr.(*bytes.Buffer).String())
	}
	if st, err := os.Stat(dir); err != nil || !st.IsDir() || st.Mode().Perm()&0o700 != 0o700 {
		t.Errorf("migrate: folder %s: %v", dir, err)
	}
	e = env(db)
	e.Args = []string{"project", "list"}
	if code := Run(context.Background(), e); code != 0 {
		t.Errorf("project list after migrate: exit %d, stderr %q", code, e.Stderr.(*bytes.Buffer).String())
	}
}

// A refused database URL leaves nothing behind: no SQLite folder (whose
// path would hold the password) and no dev key beside it.
func TestUnknownDatabaseSchemeCreatesNothing(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	for _, args := range [][]string{{"migrate"}, {"serve", "--addr", "127.0.0.1:0"}, {"dev", "--addr", "127.0.0.1:0"}} {
		var out, errb bytes.Buffer
		code := Run(context.Background(), Env{Args: args, Stdout: &out, Stderr: &errb,
			Lookup: func(k string) (string, bool) {
				return "postgress://u:hunter2@127.0.0.1/db", k == "LATCHKEY_DATABASE_URL"
			}})
		if code == 0 || !strings.Contains(errb.String(), `"postgress"`) || strings.Contains(errb.String(), "hunter2") {
			t.Errorf("%v: exit %d, stderr %q", args, code, errb.String())
		}
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Errorf("a refused database URL left %v behind", ents)
	}
}

// `latchkey dev --addr` without LATCHKEY_BASE_URL points the banner, the
// demo page (and so its redirect URLs) and every link at the address it
// listens on, not at localhost:8080.
func TestDevBaseURLFollowsTheAddress(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "dev.db")
	r := startServer(t, map[string]string{"LATCHKEY_DATABASE_URL": db, "LATCHKEY_BREACH_API_URL": "off"},
		"dev", "--addr", "127.0.0.1:0")
	_, port, _ := strings.Cut(r.addr, ":")
	base := "http://localhost:" + port
	if !strings.Contains(r.out.String(), "Demo page:    "+base+"/") || strings.Contains(r.out.String(), "localhost:8080") {
		t.Errorf("banner does not name %s:\n%s", base, r.out.String())
	}
	res, err := http.Get("http://" + r.addr + "/")
	if err != nil {
		t.Fatal(err)
	}
	page, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if !strings.Contains(string(page), `localhost:`+port) || strings.Contains(string(page), "localhost:8080") {
		t.Errorf("the demo page's base URL is not %s", base)
	}
}

// serve without LATCHKEY_BASE_URL on an address others can reach warns
// that every link points at localhost; on loopback, or with a base URL
// set, it does not.
func TestServeWarnsOfTheDefaultBaseURL(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	env := func(extra ...string) map[string]string {
		m := map[string]string{"LATCHKEY_DATABASE_URL": filepath.Join(dir, "serve.db"), "LATCHKEY_ENCRYPTION_KEY": testKey,
			"LATCHKEY_BREACH_API_URL": "off"}
		for i := 0; i+1 < len(extra); i += 2 {
			m[extra[i]] = extra[i+1]
		}
		return m
	}
	for _, c := range []struct {
		env  map[string]string
		addr string
		warn bool
	}{
		{env(), "0.0.0.0:0", true},
		{env(), "127.0.0.1:0", false},
		{env("LATCHKEY_BASE_URL", "https://auth.example.com"), "0.0.0.0:0", false},
	} {
		r := startServer(t, c.env, "serve", "--addr", c.addr)
		r.stop()
		warned := strings.Contains(r.errb.String(), "LATCHKEY_BASE_URL is not set")
		if warned != c.warn {
			t.Errorf("serve --addr %s, base URL %q: warned %t, want %t: %s", c.addr, c.env["LATCHKEY_BASE_URL"], warned, c.warn,
				r.errb.String())
		}
	}
	var out, errb bytes.Buffer
	bad := env("LATCHKEY_BASE_URL", "https://auth.example.com/path?x=1")
	code := Run(context.Background(), Env{Args: []string{"serve", "--addr", "127.0.0.1:0"}, Stdout: &out, Stderr: &errb,
		Lookup: func(k string) (string, bool) { v, ok := bad[k]; return v, ok }})
	if code == 0 || !strings.Contains(errb.String(), "LATCHKEY_BASE_URL") {
		t.Errorf("a base URL with a query: exit %d, stderr %q", code, errb.String())
	}
}
func TestDevBaseURL(t *testing.T) {
	for addr, want := range map[string]string{
		"127.0.0.1:9000":   "http://localhost:9000",
		"[::1]:9000":       "http://localhost:9000",
		"0.0.0.0:9000":     "http://localhost:9000",
		"[::]:9000":        "http://localhost:9000",
		"192.168.1.5:9000": "http://192.168.1.5:9000",
		"[fd00::5]:9000":   "http://[fd00::5]:9000",
	} {
		if got := devBaseURL(addr); got != want {
			t.Errorf("devBaseURL(%q) = %q, want %q", addr, got, want)
		}
	}
}
