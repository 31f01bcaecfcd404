package cli

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	_ "modernc.org/sqlite"
)

func TestProjectOAuth(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "cli.db")
	env := map[string]string{"LATCHKEY_DATABASE_URL": db, "LATCHKEY_ENCRYPTION_KEY": "dGVzdC1rZXktMzItYnl0ZXMtbG9uZy1mb3ItbGF0Y2g=",
		"LATCHKEY_BASE_URL": "https://auth.example.com"}
	run := func(args ...string) (int, string, string) {
		var out, errb bytes.Buffer
		code := Run(context.Background(), Env{Args: args, Stdout: &out, Stderr: &errb,
			Lookup: func(k string) (string, bool) { v, ok := env[k]; return v, ok }})
		return code, out.String(), errb.String()
	}
	code, out, errs := run("project", "create", "--name", "Shop", "--redirect-url", "https://shop.test/auth")
	if code != 0 {
		t.Fatalf("create: %s", errs)
	}
	var created map[string]string
	_ = json.Unmarshal([]byte(out), &created)
	id := created["project_id"]
	code, out, errs = run("project", "oauth", "--project", id, "--provider", "github", "--client-id", "gh-client",
		"--client-secret", "very-secret-value", "--api-url", "https://ghe.example.com/api/v3")
	if code != 0 || !strings.Contains(out, `"callback_url":"https://auth.example.com/v1/b2b/public/oauth/callback"`) ||
		strings.Contains(out+errs, "very-secret-value") {
		t.Fatalf("oauth: exit %d: %s %s", code, out, errs)
	}
	raw, err := sql.Open("sqlite", db)
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	var stored string
	if err := raw.QueryRow(`SELECT client_secret FROM oauth_provider_configs WHERE project_id = ?`, id).Scan(&stored); err != nil ||
		!strings.HasPrefix(stored, "lk1:") || strings.Contains(stored, "very-secret-value") {
		t.Fatalf("stored secret %q (%v), want it sealed", stored, err)
	}
	for _, bad := range [][]string{
		{"project", "oauth", "--project", id, "--provider", "myspace", "--client-id", "a", "--client-secret", "b"},
		{"project", "oauth", "--project", id, "--provider", "google", "--client-id", "a"},
		{"project", "oauth", "--project", id, "--provider", "google", "--client-id", "a", "--client-secret", "b", "--token-url", "https://x.test"},
		{"project", "oauth", "--project", id, "--provider", "slack", "--client-id", "a", "--client-secret", "b", "--issuer", "https://x.test"},
	} {
		if code, _, _ := run(bad...); code == 0 {
			t.Errorf("%v succeeded", bad)
		}
	}
}
