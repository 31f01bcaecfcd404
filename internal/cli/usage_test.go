package cli

import (
	"bytes"
	"context"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Go's flag package stops at the first word that is not a flag, so an
// unquoted value with a space used to drop every flag after it and exit 0.
// Every command refuses such a word, names it, and changes nothing.
func TestStrayArgumentsRefused(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "stray.db")
	id, _ := createProject(t, db)
	code, _, errs := runCLI(t, db, "project", "create", "--name", "My", "Shop", "--redirect-url", "https://shop.test/auth",
		"--origin", "https://shop.test")
	if code != 2 || !strings.Contains(errs, `"Shop"`) || !strings.Contains(errs, `--name "My Shop"`) {
		t.Fatalf("create with a stray word: exit %d, stderr %q; want 2 naming it and suggesting quotes", code, errs)
	}
	if _, out, _ := runCLI(t, db, "project", "list"); strings.Count(out, "project_id") != 1 {
		t.Fatalf("a refused create made a project: %s", out)
	}
	for _, args := range [][]string{
		{"migrate", "extra"},
		{"project", "list", "extra"},
		{"project", "update", "--project", id, "--name", "A", "extra"},
		{"project", "add-redirect-url", "--project", id, "--url", "https://shop.test/x", "extra"},
		{"project", "add-origin", "--project", id, "--origin", "https://x.test", "extra"},
		{"project", "redirect-urls", "--project", id, "extra"},
		{"project", "origins", "--project", id, "extra"},
		{"project", "remove-redirect-url", "--project", id, "--url", "https://shop.test/x", "extra"},
		{"project", "remove-origin", "--project", id, "--origin", "https://x.test", "extra"},
		{"project", "session-migration", "--project", id, "--userinfo-url", "-", "extra"},
		{"project", "rbac", "get", "--project", id, "extra"},
		{"project", "rotate-secret", "--project", id, "extra"},
		{"project", "secrets", "--project", id, "extra"},
		{"project", "retire-secret", "--project", id, "--secret-id", "s", "extra"},
		{"keys", "rotate", "--project", id, "extra"},
		{"keys", "list", "--project", id, "extra"},
		{"keys", "retire", "--project", id, "--kid", "k", "extra"},
		{"member", "impersonate", "--project", id, "--org", "o", "--member", "m", "--impersonator", "a@b.test", "extra"},
		{"audit", "--project", id, "extra"},
	} {
		if code, out, errs := runCLI(t, db, args...); code != 2 || !strings.Contains(errs, `"extra"`) || out != "" {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want exit 2 naming the stray word", args, code, out, errs)
		}
	}
	// A word after a secret's value may be the secret's second half: the
	// refusal names the flag, never the words.
	for _, args := range [][]string{
		{"project", "oauth", "--project", id, "--provider", "github", "--client-id", "a", "--client-secret", "Sec3ret-half", "Other-half"},
		{"project", "oauth", "--project", id, "--provider", "github", "--client-id", "a", "--client-secret=Sec3ret-half", "Other-half"},
	} {
		code, out, errs := runCLI(t, db, args...)
		if code != 2 || out != "" || !strings.Contains(errs, "--client-secret") || strings.Contains(errs, "half") {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want exit 2 naming the flag and neither word", args[9:], code, out, errs)
		}
	}
	// serve and dev would run until the context ends: give them one that
	// has, so that a stray word they ignored fails the test instead of
	// serving forever.
	done, cancel := context.WithCancel(context.Background())
	cancel()
	for _, args := range [][]string{{"serve", "--addr", "127.0.0.1:0", "extra"}, {"dev", "--addr", "127.0.0.1:0", "extra"}} {
		if code, _, errs := runIn(t, done, db, "", nil, args...); code != 2 || !strings.Contains(errs, `"extra"`) {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 naming the stray word", args, code, errs)
		}
	}
	if keys := keyList(t, db, id); len(keys) != 1 {
		t.Fatalf("a refused keys rotate rotated: %+v", keys)
	}
}

// --help anywhere prints that command's usage on stdout and exits 0;
// usage mistakes exit 2, failures of the work itself 1.
func TestHelpAndExitCodes(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "help.db")
	for _, args := range [][]string{
		{"--help"}, {"help"}, {"serve", "--help"}, {"dev", "-h"}, {"migrate", "--help"},
		{"project", "--help"}, {"project", "help"}, {"project", "create", "--help"}, {"project", "update", "-help"},
		{"project", "rbac", "--help"}, {"project", "rbac", "set", "--help"},
		{"project", "token-profile", "--help"}, {"project", "token-profile", "create", "--help"},
		{"project", "oauth", "--help"}, {"project", "redirect-urls", "--help"},
		{"keys", "--help"}, {"keys", "retire", "--help"}, {"member", "--help"}, {"member", "impersonate", "--help"},
		{"audit", "--help"},
	} {
		code, out, errs := runCLI(t, db, args...)
		name := args[0]
		if isHelp(name) {
			name = "project create" // the whole usage
		}
		if code != 0 || errs != "" || !strings.Contains(out, "Usage:") || !strings.Contains(out, "latchkey "+name) {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want usage on stdout, exit 0", args, code, out, errs)
		}
	}
	if _, out, _ := runCLI(t, db, "project", "create", "--help"); !strings.Contains(out, "-redirect-url") ||
		strings.Contains(out, "project update") {
		t.Errorf("project create --help: %q; want create's usage and flags only", out)
	}
	id, _ := createProject(t, db)
	for _, args := range [][]string{
		{"migrate", "--bogus"},
		{"project"}, {"project", "frobnicate"}, {"keys"}, {"keys", "frobnicate"}, {"member"}, {"member", "frobnicate"},
		{"project", "rbac"}, {"project", "token-profile"}, {"project", "token-profile", "frobnicate"},
		{"project", "create"}, {"project", "create", "--bogus"},
		{"project", "update", "--project", id, "--pkce-sso", "maybe"},
		{"keys", "retire", "--project", id},
		{"audit"},
		{"audit", "--project", id, "--type", "logins"},
	} {
		if code, _, errs := runCLI(t, db, args...); code != 2 || errs == "" {
			t.Errorf("%v: exit %d, stderr %q; want a usage error (exit 2)", args, code, errs)
		}
	}
	if _, _, errs := runCLI(t, db, "audit", "--project", id, "--type", "logins"); !strings.Contains(errs, "signing_key_rotated") {
		t.Errorf("unknown audit type: %q; want the known types listed", errs)
	}
	if code, _, errs := runCLI(t, db, "audit", "--project", id, "--type", "login"); code != 0 {
		t.Errorf("audit --type login: exit %d %s", code, errs)
	}
}

// The top-level usage names every flag README documents.
func TestUsageListsDocumentedFlags(t *testing.T) {
	t.Parallel()
	for _, want := range []string{"--pkce-oauth", "--pkce-sso", "--idp-authorization-url", "--pkce-password-resets",
		"--password-policy", "--luds-min-length", "--luds-complexity", "--force", "project redirect-urls",
		"project remove-redirect-url", "project origins", "project remove-origin", "--default", "--client-secret-stdin"} {
		if !strings.Contains(usage, want) {
			t.Errorf("usage does not mention %s", want)
		}
	}
}

// Each secret subcommand takes only its own flags: --secret-id on
// rotate-secret used to be accepted and the rotation revoked every secret.
func TestSubcommandsTakeOnlyTheirFlags(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "own.db")
	id, _ := createProject(t, db)
	for _, args := range [][]string{
		{"project", "rotate-secret", "--project", id, "--secret-id", "secret-test-x"},
		{"project", "retire-secret", "--project", id, "--secret-id", "secret-test-x", "--keep-old"},
		{"project", "secrets", "--project", id, "--keep-old"},
		{"project", "rbac", "get", "--project", id, "--force"},
		{"project", "rbac", "set", "--project", id, "--file", "x.json", "--effective"},
		{"project", "token-profile", "list", "--project", id, "--profile", "p"},
		{"keys", "rotate", "--project", id, "--kid", "k"},
	} {
		if code, _, errs := runCLI(t, db, args...); code != 2 || !strings.Contains(errs, "flag provided but not defined") {
			t.Errorf("%v: exit %d, stderr %q; want the flag refused (exit 2)", args, code, errs)
		}
	}
	code, out, _ := runCLI(t, db, "project", "secrets", "--project", id)
	if code != 0 || strings.Count(out, "secret_id") != 1 {
		t.Fatalf("secrets after the refusals: %s", out)
	}
}

// Every command that takes --project says plainly when there is no such
// project, before doing anything.
func TestUnknownProject(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "nope.db")
	createProject(t, db)
	policy := filepath.Join(t.TempDir(), "policy.json")
	writeFile(t, policy, `{"resources":[],"roles":[],"scopes":[]}`)
	for _, args := range [][]string{
		{"project", "update", "--project", "nope", "--name", "X"},
		{"project", "add-redirect-url", "--project", "nope", "--url", "https://x.test/a"},
		{"project", "remove-redirect-url", "--project", "nope", "--url", "https://x.test/a"},
		{"project", "redirect-urls", "--project", "nope"},
		{"project", "add-origin", "--project", "nope", "--origin", "https://x.test"},
		{"project", "remove-origin", "--project", "nope", "--origin", "https://x.test"},
		{"project", "origins", "--project", "nope"},
		{"project", "oauth", "--project", "nope", "--provider", "github", "--client-id", "a", "--client-secret", "b"},
		{"project", "token-profile", "list", "--project", "nope"},
		{"project", "session-migration", "--project", "nope", "--userinfo-url", "-"},
		{"project", "rbac", "get", "--project", "nope"},
		{"project", "rbac", "set", "--project", "nope", "--file", policy},
		{"project", "rotate-secret", "--project", "nope"},
		{"project", "secrets", "--project", "nope"},
		{"project", "retire-secret", "--project", "nope", "--secret-id", "s"},
		{"keys", "rotate", "--project", "nope"},
		{"keys", "list", "--project", "nope"},
		{"keys", "retire", "--project", "nope", "--kid", "k"},
		{"member", "impersonate", "--project", "nope", "--org", "o", "--member", "m", "--impersonator", "a@b.test"},
		{"audit", "--project", "nope"},
	} {
		code, out, errs := runCLI(t, db, args...)
		if code != 1 || out != "" || !strings.HasSuffix(errs, ": project \"nope\" not found\n") {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want `project \"nope\" not found`, exit 1", args, code, out, errs)
		}
	}
}

// runIn runs the CLI under ctx with stdin and extra environment variables
// besides the database and the encryption key.
func runIn(t *testing.T, ctx context.Context, db, stdin string, extra map[string]string, args ...string) (int, string, string) {
	t.Helper()
	migrated(t, db, args...)
	env := map[string]string{"LATCHKEY_DATABASE_URL": db, "LATCHKEY_ENCRYPTION_KEY": testKey}
	maps.Copy(env, extra)
	var out, errb bytes.Buffer
	code := Run(ctx, Env{Args: args, Stdin: strings.NewReader(stdin), Stdout: &out, Stderr: &errb,
		Lookup: func(k string) (string, bool) { v, ok := env[k]; return v, ok }})
	return code, out.String(), errb.String()
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
}

// serve and dev read their flags before the configuration: --help answers
// even where the environment's configuration would stop start-up.
func TestServeHelpDespiteBadConfiguration(t *testing.T) {
	t.Parallel()
	bad := map[string]string{"LATCHKEY_BODY_LIMIT": "lots"}
	for _, cmd := range []string{"serve", "dev"} {
		code, out, errs := runIn(t, t.Context(), filepath.Join(t.TempDir(), "help.db"), "", bad, cmd, "--help")
		if code != 0 || !strings.Contains(out, "Usage:") || !strings.Contains(out, "-addr") {
			t.Errorf("%s --help: exit %d, stdout %q, stderr %q; want usage, exit 0", cmd, code, out, errs)
		}
	}
	if code, _, errs := runIn(t, t.Context(), filepath.Join(t.TempDir(), "bad.db"), "", bad, "serve"); code != 1 || !strings.Contains(errs, "LATCHKEY_BODY_LIMIT") {
		t.Errorf("serve with a bad body limit: exit %d, stderr %q; want the configuration error, exit 1", code, errs)
	}
}
