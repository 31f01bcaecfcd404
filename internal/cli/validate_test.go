package cli

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"
)

// runWith runs args with the CLI tests' database and key plus vars.
func runWith(t *testing.T, dbPath string, vars map[string]string, args ...string) (int, string, string) {
	t.Helper()
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
