package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func runCLI(t *testing.T, dbPath string, args ...string) (int, string, string) {
	t.Helper()
	migrated(t, dbPath, args...)
	var out, errb bytes.Buffer
	env := map[string]string{"LATCHKEY_DATABASE_URL": dbPath, "LATCHKEY_ENCRYPTION_KEY": testKey}
	code := Run(context.Background(), Env{Args: args, Stdout: &out, Stderr: &errb,
		Lookup: func(k string) (string, bool) { v, ok := env[k]; return v, ok }})
	return code, out.String(), errb.String()
}

// migrated runs `latchkey migrate` on the SQLite database at dbPath when
// it does not exist yet and args is a command that needs one (every
// command but serve, dev and migrate), as an operator's first setup does:
// the other commands refuse a database that does not exist.
func migrated(t *testing.T, dbPath string, args ...string) {
	t.Helper()
	if dbPath == "" || len(args) == 0 || args[0] == "serve" || args[0] == "dev" || args[0] == "migrate" ||
		strings.Contains(dbPath, "://") {
		return
	}
	if _, err := os.Stat(dbPath); err == nil {
		return
	}
	var out, errb bytes.Buffer
	env := map[string]string{"LATCHKEY_DATABASE_URL": dbPath, "LATCHKEY_ENCRYPTION_KEY": testKey}
	if code := Run(context.Background(), Env{Args: []string{"migrate"}, Stdout: &out, Stderr: &errb,
		Lookup: func(k string) (string, bool) { v, ok := env[k]; return v, ok }}); code != 0 {
		t.Fatalf("migrate %s: exit %d: %s", dbPath, code, errb.String())
	}
}

// testKey is the CLI tests' LATCHKEY_ENCRYPTION_KEY.
const testKey = "dGVzdC1rZXktMzItYnl0ZXMtbG9uZy1mb3ItbGF0Y2g="

func TestProjectCommands(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "cli.db")
	code, out, errs := runCLI(t, db, "project", "create", "--name", "Shop", "--redirect-url", "https://shop.test/auth",
		"--origin", "https://shop.test")
	if code != 0 {
		t.Fatalf("create: exit %d: %s", code, errs)
	}
	var created struct{ ProjectID, Secret, PublicToken string }
	dec := json.NewDecoder(strings.NewReader(out))
	var raw map[string]string
	if err := dec.Decode(&raw); err != nil {
		t.Fatalf("create output is not JSON: %q", out)
	}
	created.ProjectID, created.Secret, created.PublicToken = raw["project_id"], raw["secret"], raw["public_token"]
	if !strings.HasPrefix(created.ProjectID, "project-test-") || !strings.HasPrefix(created.Secret, "secret-test-") ||
		!strings.HasPrefix(created.PublicToken, "public-token-test-") {
		t.Fatalf("create output = %v", raw)
	}
	if code, _, errs := runCLI(t, db, "project", "add-origin", "--project", created.ProjectID, "--origin", "https://admin.shop.test"); code != 0 {
		t.Fatalf("add-origin: %s", errs)
	}
	if code, _, errs := runCLI(t, db, "project", "add-redirect-url", "--project", created.ProjectID, "--url", "https://shop.test/join",
		"--type", "signup"); code != 0 {
		t.Fatalf("add-redirect-url: %s", errs)
	}
	code, out, _ = runCLI(t, db, "project", "list")
	if code != 0 || !strings.Contains(out, created.ProjectID) || strings.Contains(out, created.Secret) {
		t.Fatalf("list: exit %d: %s", code, out)
	}
	code, out, errs = runCLI(t, db, "project", "update", "--project", created.ProjectID, "--products", "emailOtp,emailMagicLinks",
		"--pkce-magic-links", "true", "--session-duration", "120", "--slug-pattern", "https://{{slug}}.shop.test")
	if code != 0 || !strings.Contains(out, `"pkce_required_for_email_magic_links":true`) || !strings.Contains(out, `"session_duration_minutes":120`) {
		t.Fatalf("update: exit %d: %s %s", code, out, errs)
	}
	if code, _, _ := runCLI(t, db, "keys", "rotate", "--project", created.ProjectID); code != 0 {
		t.Fatal("keys rotate failed")
	}
	for _, bad := range [][]string{
		{"project", "create"},
		{"project", "create", "--name", "X", "--redirect-url", "javascript:alert(1)"},
		{"project", "add-origin", "--project", created.ProjectID, "--origin", "https://x.test/path"},
		{"project", "add-redirect-url", "--project", created.ProjectID, "--url", "https://x.test", "--type", "nope"},
		{"project", "frobnicate"},
		{"project", "update", "--project", created.ProjectID, "--products", "telepathy"},
		{"project", "update", "--project", created.ProjectID, "--pkce-magic-links", "maybe"},
		{"project", "update", "--project", created.ProjectID, "--slug-pattern", "https://no-placeholder.test"},
		{"project", "update", "--project", created.ProjectID, "--session-duration", "1"},
		{"keys", "rotate", "--project", "project-test-missing"},
	} {
		if code, _, errs := runCLI(t, db, bad...); code == 0 || errs == "" {
			t.Errorf("%v: exit %d, stderr %q; want a failure with a message", bad, code, errs)
		}
	}
}

func TestMigrateAndUsage(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "m.db")
	if code, out, errs := runCLI(t, db, "migrate"); code != 0 || !strings.Contains(out, "migrations applied") {
		t.Fatalf("migrate: %d %s %s", code, out, errs)
	}
	if code, _, errs := runCLI(t, db); code != 2 || !strings.Contains(errs, "Usage") {
		t.Fatalf("no args: %d %s", code, errs)
	}
	if code, _, errs := runCLI(t, db, "bogus"); code != 2 || !strings.Contains(errs, "unknown command") {
		t.Fatalf("bogus: %d %s", code, errs)
	}
}
