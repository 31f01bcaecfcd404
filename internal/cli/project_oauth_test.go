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
	if code, _, errs := run("migrate"); code != 0 { // only serve, dev and migrate create a database
		t.Fatalf("migrate: %s", errs)
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

// The provider endpoints are fetched and trusted, so plain http is only
// for a loopback host (a test or a local mock), as for JWKS URLs.
func TestProjectOAuthRefusesPlainHTTP(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "http.db")
	id, _ := createProject(t, db)
	base := []string{"project", "oauth", "--project", id, "--client-id", "a", "--client-secret", "b"}
	for _, extra := range [][]string{
		{"--provider", "google", "--issuer", "http://idp.example.com"},
		{"--provider", "github", "--token-url", "http://ghe.example.com/token"},
		{"--provider", "github", "--api-url", "http://10.0.0.5/api"},
		{"--provider", "hubspot", "--authorize-url", "http://localhost.example.com/auth"},
	} {
		if code, _, errs := runCLI(t, db, append(base, extra...)...); code != 1 || !strings.Contains(errs, "https") {
			t.Errorf("%v: exit %d %s; want plain http refused", extra, code, errs)
		}
	}
	for _, extra := range [][]string{
		{"--provider", "google", "--issuer", "http://127.0.0.1:9999"},
		{"--provider", "github", "--token-url", "http://localhost:9999/token", "--api-url", "http://[::1]:9999/api"},
	} {
		if code, _, errs := runCLI(t, db, append(base, extra...)...); code != 0 {
			t.Errorf("%v: exit %d %s; want loopback http accepted", extra, code, errs)
		}
	}
}

// The client secret need not be typed on the command line: it can come
// from stdin or from LATCHKEY_OAUTH_CLIENT_SECRET.
func TestProjectOAuthSecretSources(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "src.db")
	id, _ := createProject(t, db)
	d, _ := openStore(t, db)
	stored := func(provider string) string {
		t.Helper()
		var sealed string
		if err := d.Read().QueryRowContext(context.Background(), `SELECT client_secret FROM oauth_provider_configs
			WHERE project_id = $1 AND provider = $2`, id, provider).Scan(&sealed); err != nil {
			t.Fatal(err)
		}
		return sealed
	}
	ctx := context.Background()
	base := []string{"project", "oauth", "--project", id, "--client-id", "a"}
	if code, _, errs := runIn(t, ctx, db, "from-stdin\n", nil, append(base, "--provider", "github", "--client-secret-stdin")...); code != 0 {
		t.Fatalf("--client-secret-stdin: %s", errs)
	}
	if code, _, errs := runIn(t, ctx, db, "dash-secret\r\n", nil, append(base, "--provider", "slack", "--client-secret", "-")...); code != 0 {
		t.Fatalf("--client-secret -: %s", errs)
	}
	if code, _, errs := runIn(t, ctx, db, "", map[string]string{"LATCHKEY_OAUTH_CLIENT_SECRET": "env-secret"},
		append(base, "--provider", "hubspot")...); code != 0 {
		t.Fatalf("LATCHKEY_OAUTH_CLIENT_SECRET: %s", errs)
	}
	a, err := openApp(ctx, Env{Lookup: func(k string) (string, bool) {
		v, ok := map[string]string{"LATCHKEY_DATABASE_URL": db, "LATCHKEY_ENCRYPTION_KEY": testKey}[k]
		return v, ok
	}})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	for provider, want := range map[string]string{"github": "from-stdin", "slack": "dash-secret", "hubspot": "env-secret"} {
		c, err := a.OAuth.LoadConfig(ctx, id, provider)
		if err != nil || c.ClientSecret != want || strings.Contains(stored(provider), want) {
			t.Errorf("%s: stored secret %+v (%v), want %q sealed", provider, c, err, want)
		}
	}
	for _, c := range []struct {
		stdin string
		args  []string
	}{
		{"", append(base, "--provider", "github", "--client-secret-stdin")},
		{"\n", append(base, "--provider", "github", "--client-secret", "-")},
		{"x\n", append(base, "--provider", "github", "--client-secret", "y", "--client-secret-stdin")},
	} {
		if code, _, errs := runIn(t, ctx, db, c.stdin, nil, c.args...); code != 2 || errs == "" {
			t.Errorf("%v with stdin %q: exit %d %s; want a usage error", c.args, c.stdin, code, errs)
		}
	}
}
