package cli

import (
	"bytes"
	"context"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/latchkey/latchkey/internal/store"
)

// runWith runs args with the CLI tests' database and key plus vars.
func runWith(t *testing.T, dbPath string, vars map[string]string, args ...string) (int, string, string) {
	t.Helper()
	migrated(t, dbPath, args...)
	env := map[string]string{"LATCHKEY_DATABASE_URL": dbPath, "LATCHKEY_ENCRYPTION_KEY": testKey}
	for k, v := range vars {
		env[k] = v
	}
	var out, errb bytes.Buffer
	code := Run(context.Background(), Env{Args: args, Stdout: &out, Stderr: &errb,
		Lookup: func(k string) (string, bool) { v, ok := env[k]; return v, ok }})
	return code, out.String(), errb.String()
}

// Every command refuses a configuration serve refuses: migrate once
// printed "migrations applied" under each of these, and serve then failed.
func TestCommandsValidateTheConfiguration(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ key, value string }{
		{"LATCHKEY_BASE_URL", "ftp://x"},
		{"LATCHKEY_TRUSTED_PROXIES", "nonsense"},
		{"LATCHKEY_LOG_LEVEL", "verbose"},
		{"LATCHKEY_SMTP_URL", "smtp://u:hunter2@smtp.example.com:587?tls=none"},
	} {
		for _, args := range [][]string{{"migrate"}, {"project", "list"}, {"project", "rbac", "get", "--project", "p"}} {
			db := filepath.Join(t.TempDir(), "cli.db")
			code, out, errs := runWith(t, db, map[string]string{c.key: c.value}, args...)
			if code != 1 || strings.Contains(out, "migrations applied") || !strings.Contains(errs, c.key) ||
				strings.Contains(errs, "hunter2") {
				t.Errorf("%v with %s=%s: exit %d, stdout %q, stderr %q", args, c.key, c.value, code, out, errs)
			}
		}
	}
	// help needs no configuration at all.
	if code, out, _ := runWith(t, "", map[string]string{"LATCHKEY_BASE_URL": "ftp://x"}, "help"); code != 0 || !strings.Contains(out, "Usage:") {
		t.Errorf("help under a bad configuration: exit %d", code)
	}
	if code, out, _ := runWith(t, "", map[string]string{"LATCHKEY_BASE_URL": "ftp://x"}, "migrate", "--help"); code != 0 || out == "" {
		t.Errorf("migrate --help under a bad configuration: exit %d", code)
	}
}

// A misspelled LATCHKEY_* variable is named, with the name it most likely
// misspells, by serve's log and by every command, which still runs: a
// warning, not a refusal.
func TestUnknownVariablesAreNamed(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "cli.db")
	vars := map[string]string{"LATCHKEY_DATABASE_URL": db, "LATCHKEY_ENCRYPTION_KEY": testKey,
		"LATCHKEY_TRUSTED_PROXY": "10.0.0.0/8", "LATCHKEY_TEST_POSTGRES_DSN": "postgres://x", "LATCHKEY_OAUTH_CLIENT_SECRET": "s",
		"LATCHKEY_NEW_ENCRYPTION_KEY": "k"}
	env := func(args ...string) (Env, *bytes.Buffer, *bytes.Buffer) {
		var out, errb bytes.Buffer
		return Env{Args: args, Stdout: &out, Stderr: &errb,
			Lookup: func(k string) (string, bool) { v, ok := vars[k]; return v, ok },
			Environ: func() []string {
				var kv []string
				for k, v := range vars {
					kv = append(kv, k+"="+v)
				}
				return kv
			}}, &out, &errb
	}
	const want = "LATCHKEY_TRUSTED_PROXY (did you mean LATCHKEY_TRUSTED_PROXIES?)"
	e, out, errb := env("migrate")
	if code := Run(context.Background(), e); code != 0 || !strings.Contains(out.String(), "migrations applied") ||
		!strings.Contains(errb.String(), want) {
		t.Errorf("migrate: exit %d, stdout %q, stderr %q", code, out, errb)
	}
	for _, tool := range []string{"LATCHKEY_TEST_POSTGRES_DSN", "LATCHKEY_OAUTH_CLIENT_SECRET", "LATCHKEY_NEW_ENCRYPTION_KEY",
		"LATCHKEY_DATABASE_URL"} {
		if strings.Contains(errb.String(), tool) {
			t.Errorf("%s is named as unknown: %q", tool, errb)
		}
	}
	// serve logs it before anything that may fail because of it: here the
	// key, set under a wrong name.
	delete(vars, "LATCHKEY_ENCRYPTION_KEY")
	vars["LATCHKEY_ENCRYPTON_KEY"] = testKey
	e, _, errb = env("serve", "--addr", "127.0.0.1:0")
	if code := Run(context.Background(), e); code != 1 || !strings.Contains(errb.String(), want) ||
		!strings.Contains(errb.String(), "LATCHKEY_ENCRYPTON_KEY (did you mean LATCHKEY_ENCRYPTION_KEY?)") ||
		strings.Contains(errb.String(), testKey) {
		t.Errorf("serve: exit %d, stderr %q", code, errb)
	}
}

// serve refuses a plain-http base URL off loopback before it migrates or
// listens, naming the variable and the opt-out.
func TestServeRefusesAnInsecureBaseURL(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	vars := map[string]string{"LATCHKEY_DATABASE_URL": filepath.Join(dir, "serve.db"), "LATCHKEY_ENCRYPTION_KEY": testKey,
		"LATCHKEY_BASE_URL": "http://auth.example.com"}
	// Bounded: a serve that accepts the URL runs until its context ends.
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	var out, errb bytes.Buffer
	code := Run(ctx, Env{Args: []string{"serve", "--addr", "127.0.0.1:0"}, Stdout: &out, Stderr: &errb,
		Lookup: func(k string) (string, bool) { v, ok := vars[k]; return v, ok }})
	errs := errb.String()
	if code != 1 || !strings.Contains(errs, "LATCHKEY_BASE_URL") || !strings.Contains(errs, "LATCHKEY_ALLOW_INSECURE_BASE_URL=true") {
		t.Errorf("serve: exit %d, stderr %q", code, errs)
	}
	if _, err := os.Stat(filepath.Join(dir, "serve.db")); err == nil {
		t.Error("serve created the database before refusing the configuration")
	}
}

// dev refuses what looks like production (a database holding projects the
// demo seed did not create, a public https base URL) unless --force; its
// own database, seeded before, is fine.
func TestDevRefusesAProductionLookingSetup(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "dev.db")
	vars := map[string]string{"LATCHKEY_DATABASE_URL": db, "LATCHKEY_BREACH_API_URL": "off"}
	run := func(vars map[string]string, args ...string) (int, string) {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		var out, errb bytes.Buffer
		code := Run(ctx, Env{Args: args, Stdout: &out, Stderr: &errb,
			Lookup: func(k string) (string, bool) { v, ok := vars[k]; return v, ok }})
		return code, errb.String()
	}

	startServer(t, vars, "dev", "--addr", "127.0.0.1:0").stop()
	startServer(t, vars, "dev", "--addr", "127.0.0.1:0").stop() // the demo project alone is dev's own
	if code, errs := run(vars, "project", "create", "--name", "Real Shop"); code != 0 {
		t.Fatalf("project create: exit %d: %s", code, errs)
	}
	code, errs := run(vars, "dev", "--addr", "127.0.0.1:0")
	if code != 1 || !strings.Contains(errs, `"Real Shop"`) || !strings.Contains(errs, "--force") {
		t.Errorf("dev on a database with another project: exit %d, stderr %q", code, errs)
	}
	startServer(t, vars, "dev", "--addr", "127.0.0.1:0", "--force").stop()

	fresh := map[string]string{"LATCHKEY_DATABASE_URL": filepath.Join(t.TempDir(), "dev.db"), "LATCHKEY_BREACH_API_URL": "off",
		"LATCHKEY_BASE_URL": "https://auth.example.com"}
	code, errs = run(fresh, "dev", "--addr", "127.0.0.1:0")
	if code != 1 || !strings.Contains(errs, "LATCHKEY_BASE_URL https://auth.example.com") || !strings.Contains(errs, "--force") {
		t.Errorf("dev under a public https base URL: exit %d, stderr %q", code, errs)
	}
	if _, err := os.Stat(fresh["LATCHKEY_DATABASE_URL"]); err == nil {
		t.Error("dev created its database before refusing the base URL")
	}
	fresh["LATCHKEY_BASE_URL"] = "https://localhost:8443"
	startServer(t, fresh, "dev", "--addr", "127.0.0.1:0").stop()
	// serve has no --force: it is dev's alone.
	if code, errs := run(vars, "serve", "--force"); code != 2 || !strings.Contains(errs, "-force") {
		t.Errorf("serve --force: exit %d, stderr %q", code, errs)
	}
}

// A database migrated by a newer release is used (a rolling deploy runs
// old binaries on it) but named, by migrate and at serve's start.
func TestNewerSchemaIsWarnedOf(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "cli.db")
	if code, _, errs := runWith(t, db, nil, "migrate"); code != 0 || strings.Contains(errs, "newer release") {
		t.Fatalf("first migrate: exit %d, stderr %q", code, errs)
	}
	sqlDB, err := store.Open(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	_, err = sqlDB.ExecContext(context.Background(), `INSERT INTO schema_migrations (version, applied_at) VALUES ('9999', 1)`)
	sqlDB.Close()
	if err != nil {
		t.Fatal(err)
	}
	code, out, errs := runWith(t, db, nil, "migrate")
	if code != 0 || !strings.Contains(out, "migrations applied") || !strings.Contains(errs, "migrated by a newer release") ||
		!strings.Contains(errs, "(9999)") {
		t.Errorf("migrate on a newer schema: exit %d, stdout %q, stderr %q", code, out, errs)
	}
	r := startServer(t, map[string]string{"LATCHKEY_DATABASE_URL": db, "LATCHKEY_ENCRYPTION_KEY": testKey,
		"LATCHKEY_BREACH_API_URL": "off"}, "serve", "--addr", "127.0.0.1:0")
	r.stop()
	if !strings.Contains(r.errb.String(), "migrated by a newer release") || !strings.Contains(r.errb.String(), "(9999)") {
		t.Errorf("serve on a newer schema did not warn: %s", r.errb.String())
	}
}

// A bad listen port is refused before the migrations, naming the
// variable; a metrics address that cannot be had stops the start before
// the main server serves.
func TestListenAddressesFailEarly(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	code, _, errs := runWith(t, filepath.Join(dir, "addr.db"), map[string]string{"LATCHKEY_ADDR": ":99999"}, "serve")
	if code != 1 || !strings.Contains(errs, "LATCHKEY_ADDR") {
		t.Errorf("serve on :99999: exit %d, stderr %q", code, errs)
	}
	if _, err := os.Stat(filepath.Join(dir, "addr.db")); err == nil {
		t.Error("serve migrated a database before refusing the address")
	}

	taken, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer taken.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	vars := map[string]string{"LATCHKEY_DATABASE_URL": filepath.Join(dir, "metrics.db"), "LATCHKEY_ENCRYPTION_KEY": testKey,
		"LATCHKEY_METRICS_ADDR": taken.Addr().String()}
	free, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := free.Addr().String()
	free.Close()
	var out, errb bytes.Buffer
	code = Run(ctx, Env{Args: []string{"serve", "--addr", addr}, Stdout: &out, Stderr: &errb,
		Lookup: func(k string) (string, bool) { v, ok := vars[k]; return v, ok }})
	if code != 1 || !strings.Contains(errb.String(), "LATCHKEY_METRICS_ADDR") || strings.Contains(errb.String(), "latchkey listening") {
		t.Errorf("serve with a taken metrics address: exit %d, stderr %q", code, errb.String())
	}
	// The main address was never served, and is not left open behind the
	// failed start (it once went on serving after serve returned).
	if c, err := net.DialTimeout("tcp", addr, time.Second); err == nil {
		c.Close()
		t.Errorf("the main address %s still accepts connections after the failed start", addr)
	}
}
