package cli

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/latchkey/latchkey/internal/audit"
	"github.com/latchkey/latchkey/internal/clock"
)

// jsonObjects reads out as one JSON object per line, failing on any line
// that is not one.
func jsonObjects(t *testing.T, what, out string) []map[string]any {
	t.Helper()
	var objs []map[string]any
	for line := range strings.Lines(out) {
		var o map[string]any
		if err := json.Unmarshal([]byte(line), &o); err != nil {
			t.Fatalf("%s: line %q is not a JSON object (%v); stdout:\n%s", what, line, err, out)
		}
		objs = append(objs, o)
	}
	return objs
}

// Every command prints JSON on stdout: one object for a change, one object
// per line for a listing; hints go to stderr. remove-origin,
// remove-redirect-url, keys retire and retire-secret printed a sentence,
// add-origin and add-redirect-url nothing, token-profile list one wrapper
// object.
func TestEveryCommandPrintsJSON(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "contract.db")
	id, _ := createProject(t, db)
	if code, _, errs := runCLI(t, db, "keys", "rotate", "--project", id); code != 0 {
		t.Fatalf("keys rotate: %s", errs)
	}
	if code, _, errs := runCLI(t, db, "project", "rotate-secret", "--project", id, "--keep-old"); code != 0 {
		t.Fatalf("rotate-secret: %s", errs)
	}
	_, projects := openStore(t, db)
	ctx := context.Background()
	keys, _ := projects.ListSigningKeys(ctx, id)
	secrets, _ := projects.ListSecrets(ctx, id)
	if len(keys) != 2 || len(secrets) != 2 {
		t.Fatalf("keys %d, secrets %d", len(keys), len(secrets))
	}
	changes := []struct {
		args []string
		want map[string]any // fields the object must hold
	}{
		{[]string{"project", "add-origin", "--project", id, "--origin", "https://Admin.Shop.test:443"},
			map[string]any{"project_id": id, "origin": "https://admin.shop.test"}},
		{[]string{"project", "remove-origin", "--project", id, "--origin", "https://admin.shop.test"},
			map[string]any{"origin": "https://admin.shop.test", "removed": true}},
		{[]string{"project", "add-redirect-url", "--project", id, "--url", "https://shop.test/a", "--type", "login"},
			map[string]any{"url": "https://shop.test/a", "types": []any{"login"}}},
		{[]string{"project", "add-redirect-url", "--project", id, "--url", "https://shop.test/b", "--type", "signup", "--default"},
			map[string]any{"url": "https://shop.test/b", "default": true}},
		{[]string{"project", "remove-redirect-url", "--project", id, "--url", "https://shop.test/a"},
			map[string]any{"url": "https://shop.test/a", "types": []any{"login"}, "removed": true}},
		{[]string{"keys", "retire", "--project", id, "--kid", keys[1].KID}, map[string]any{"kid": keys[1].KID, "retired": true}},
		{[]string{"project", "retire-secret", "--project", id, "--secret-id", secrets[1].SecretID},
			map[string]any{"secret_id": secrets[1].SecretID, "retired": true}},
		{[]string{"project", "token-profile", "create", "--project", id, "--issuer", "https://idp.test", "--audience", "shop",
			"--jwks-url", "https://idp.test/jwks"}, map[string]any{"issuer": "https://idp.test"}},
	}
	for _, c := range changes {
		code, out, errs := runCLI(t, db, c.args...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", c.args, code, errs)
		}
		objs := jsonObjects(t, strings.Join(c.args[:2], " "), out)
		if len(objs) != 1 {
			t.Fatalf("%v printed %d objects: %s", c.args, len(objs), out)
		}
		for k, v := range c.want {
			if got, _ := json.Marshal(objs[0][k]); string(got) != mustJSON(v) {
				t.Errorf("%v: %s = %s, want %s", c.args, k, got, mustJSON(v))
			}
		}
	}
	for _, args := range [][]string{{"project", "token-profile", "create", "--project", id, "--issuer", "https://idp2.test",
		"--audience", "shop", "--jwks-url", "https://idp2.test/jwks"}} {
		if code, _, errs := runCLI(t, db, args...); code != 0 {
			t.Fatalf("%v: %s", args, errs)
		}
	}
	code, out, errs := runCLI(t, db, "project", "token-profile", "list", "--project", id)
	if objs := jsonObjects(t, "token-profile list", out); code != 0 || len(objs) != 2 || objs[0]["profile_id"] == nil {
		t.Fatalf("token-profile list: exit %d, %d objects: %s %s", code, len(objs), out, errs)
	}
}

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// A refusal says what is wrong in a plain sentence: no doubled prefix,
// no "not authorized" for an origin that is simply not in the list, and
// no chain of internal causes (store: not found: sql: no rows...), which
// LATCHKEY_LOG_LEVEL=debug still shows.
func TestRefusalsAreReadable(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "msg.db")
	id, _ := createProject(t, db)
	if code, _, errs := runCLI(t, db, "project", "add-redirect-url", "--project", id, "--url", "https://shop.test/auth"); code != 0 {
		t.Fatalf("add-redirect-url: %s", errs)
	}
	orgID, _ := seedMember(t, db, id)
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"project", "remove-origin", "--project", id, "--origin", "https://nope.test"},
			"latchkey project: origin https://nope.test is not registered (see latchkey project origins --project " + id + ")\n"},
		{[]string{"project", "remove-redirect-url", "--project", id, "--url", "https://nope.test/x"},
			"latchkey project: redirect URL https://nope.test/x is not registered (see latchkey project redirect-urls --project " + id + ")\n"},
		{[]string{"project", "retire-secret", "--project", id, "--secret-id", "nope"},
			"latchkey project: secret nope is not one of the project's secrets (see latchkey project secrets --project " + id + ")\n"},
		{[]string{"keys", "retire", "--project", id, "--kid", "nope"},
			"latchkey keys: key nope is not one of the project's signing keys (see latchkey keys list --project " + id + ")\n"},
		{[]string{"member", "impersonate", "--project", id, "--org", orgID, "--member", "nope", "--impersonator", "ops@vendor.test"},
			"latchkey member: Member not found. (member_not_found)\n"},
	}
	for _, c := range cases {
		code, out, errs := runCLI(t, db, c.args...)
		if code != 1 || out != "" || errs != c.want {
			t.Errorf("%v: exit %d, stdout %q, stderr\n%q\nwant\n%q", c.args, code, out, errs, c.want)
		}
	}
	code, _, errs := runWith(t, db, map[string]string{"LATCHKEY_LOG_LEVEL": "debug"}, "member", "impersonate", "--project", id,
		"--org", orgID, "--member", "nope", "--impersonator", "ops@vendor.test")
	if code != 1 || !strings.Contains(errs, "Member not found.") || !strings.Contains(errs, "store: not found") {
		t.Errorf("debug: exit %d, stderr %q; want the message and its cause", code, errs)
	}
}

// Without LATCHKEY_BASE_URL the CLI cannot know the server's public URL:
// project oauth still answers the callback URL it derives, but warns that
// it names the default localhost, which no provider can send anyone to.
func TestProjectOAuthWarnsOfTheDefaultBaseURL(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "base.db")
	id, _ := createProject(t, db)
	args := []string{"project", "oauth", "--project", id, "--provider", "google", "--client-id", "c", "--client-secret", "s"}
	code, out, errs := runCLI(t, db, args...)
	if code != 0 || !strings.Contains(out, `"callback_url":"http://localhost:8080/v1/b2b/public/oauth/callback"`) ||
		!strings.Contains(errs, "warning: LATCHKEY_BASE_URL is not set") {
		t.Fatalf("without a base URL: exit %d, stdout %q, stderr %q", code, out, errs)
	}
	code, out, errs = runWith(t, db, map[string]string{"LATCHKEY_BASE_URL": "https://auth.example.com"}, args...)
	if code != 0 || !strings.Contains(out, `"callback_url":"https://auth.example.com/v1/b2b/public/oauth/callback"`) || errs != "" {
		t.Fatalf("with a base URL: exit %d, stdout %q, stderr %q", code, out, errs)
	}
}

// latchkey audit reaches every event: --limit is 1 to 1000 (5000 printed
// 1000 without a word, 0 and -1 meant 100), a negative --since or --until
// is refused (-1h meant "all"), and a full page names on stderr the
// command that prints the next one.
func TestAuditPagesAndRefusesBadBounds(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "audit.db")
	id, _ := createProject(t, db)
	d, _ := openStore(t, db)
	log := audit.New(d, clock.Real{})
	for range 6 {
		if err := log.Record(context.Background(), audit.Event{ProjectID: id, Type: audit.Login}); err != nil {
			t.Fatal(err)
		}
	}
	for _, bad := range [][]string{
		{"--limit", "5000"}, {"--limit", "1001"}, {"--limit", "0"}, {"--limit", "-1"},
		{"--since", "-1h"}, {"--until", "-1h"}, {"--until", "yesterday"}, {"--since", "soon"},
	} {
		code, out, errs := runCLI(t, db, append([]string{"audit", "--project", id}, bad...)...)
		if code != 2 || out != "" || !strings.Contains(errs, bad[0]) {
			t.Errorf("audit %v: exit %d, stdout %q, stderr %q; want a usage error naming %s", bad, code, out, errs, bad[0])
		}
	}
	code, out, errs := runCLI(t, db, "audit", "--project", id, "--limit", "1000")
	all := jsonObjects(t, "audit", out)
	if code != 0 || len(all) != 7 || errs != "" { // the project's creation and six logins
		t.Fatalf("whole listing: exit %d, %d events, stderr %q", code, len(all), errs)
	}
	var paged []map[string]any
	args := []string{"audit", "--project", id, "--limit", "3", "--since", "1h"}
	for page := 0; ; page++ {
		if page > 5 {
			t.Fatal("paging does not end")
		}
		code, out, errs := runCLI(t, db, args...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, errs)
		}
		events := jsonObjects(t, "audit page", out)
		paged = append(paged, events...)
		if len(events) < 3 {
			if errs != "" {
				t.Fatalf("a short page hints at a next one: %q", errs)
			}
			break
		}
		_, next, ok := strings.Cut(strings.TrimSpace(errs), "the next page: latchkey ")
		if !ok {
			t.Fatalf("a full page says nothing of the next: %q", errs)
		}
		args = strings.Fields(next)
		if !slices.Contains(args, "--before") || slices.Contains(args, "1h") {
			t.Fatalf("next page command %q: want --before and --since as a time", next)
		}
	}
	if len(paged) != len(all) {
		t.Fatalf("paging listed %d events, the whole listing %d", len(paged), len(all))
	}
	for i := range all {
		if paged[i]["event_id"] != all[i]["event_id"] {
			t.Fatalf("event %d: paged %v, listed %v", i, paged[i]["event_id"], all[i]["event_id"])
		}
	}
	if code, _, errs := runCLI(t, db, "audit", "--project", id, "--before", "audit-event-test-nope"); code != 1 ||
		!strings.Contains(errs, "--before audit-event-test-nope names no event") {
		t.Fatalf("unknown cursor: exit %d %q", code, errs)
	}
}

// Every configuration change made with the CLI is a config_changed event
// (actor cli, method the command, details what changed, never a secret),
// filed in the change's own transaction: without the audit table, each
// command fails and changes nothing. Before, only key and secret rotation
// and impersonation were recorded.
func TestConfigChangesAreAudited(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	db := filepath.Join(dir, "cfg.db")
	id, _ := createProject(t, db)
	policy := filepath.Join(dir, "policy.json")
	if err := os.WriteFile(policy, []byte(`{"resources":[{"resource_id":"documents","description":"Docs","actions":["read"]}],
		"roles":[{"role_id":"reader","description":"Reads","permissions":[{"resource_id":"documents","actions":["read"]}]}]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	const clientSecret = "oauth-client-secret-value"
	steps := []struct {
		args   []string
		method string
		detail string // a fragment of the event's details
	}{
		{[]string{"project", "add-origin", "--project", id, "--origin", "https://shop.test"}, "add-origin", `"origin":"https://shop.test"`},
		{[]string{"project", "remove-origin", "--project", id, "--origin", "https://shop.test"}, "remove-origin", `"origin":"https://shop.test"`},
		{[]string{"project", "add-redirect-url", "--project", id, "--url", "https://shop.test/a", "--type", "login"},
			"add-redirect-url", `"types":["login"]`},
		{[]string{"project", "remove-redirect-url", "--project", id, "--url", "https://shop.test/a"},
			"remove-redirect-url", `"url":"https://shop.test/a"`},
		{[]string{"project", "update", "--project", id, "--pkce-sso", "true", "--name", "Shop 2"}, "update",
			`"settings":{"name":"Shop 2","pkce-sso":"true"}`},
		{[]string{"project", "oauth", "--project", id, "--provider", "google", "--client-id", "c1", "--client-secret", clientSecret},
			"oauth", `"created":true`},
		{[]string{"project", "oauth", "--project", id, "--provider", "google", "--client-id", "c2", "--client-secret", clientSecret + "2"},
			"oauth", `"changed":["client_id","client_secret"]`},
		{[]string{"project", "rbac", "set", "--project", id, "--file", policy}, "rbac set", `"roles_added":["reader"]`},
		{[]string{"project", "token-profile", "create", "--project", id, "--issuer", "https://idp.test", "--audience", "shop",
			"--jwks-url", "https://idp.test/jwks"}, "token-profile create", `"issuer":"https://idp.test"`},
		{[]string{"project", "session-migration", "--project", id, "--userinfo-url", "https://old.test/userinfo"},
			"session-migration", `"enabled":true`},
	}
	for _, s := range steps {
		if code, _, errs := runCLI(t, db, s.args...); code != 0 {
			t.Fatalf("%v: exit %d: %s", s.args, code, errs)
		}
	}
	code, out, errs := runCLI(t, db, "audit", "--project", id, "--type", "config_changed", "--limit", "1000")
	if code != 0 || strings.Contains(out, clientSecret) {
		t.Fatalf("audit: exit %d %s\n%s", code, errs, out)
	}
	events := jsonObjects(t, "audit", out)
	slices.Reverse(events) // oldest first, as the steps ran
	if len(events) != len(steps)+1 || events[0]["method"] != "create" {
		t.Fatalf("%d config_changed events, want %d (creation first):\n%s", len(events), len(steps)+1, out)
	}
	for i, s := range steps {
		e := events[i+1]
		if e["method"] != s.method || e["actor"] != "cli" || !strings.Contains(mustJSON(e["details"]), s.detail) {
			t.Errorf("event for %v = %v, want method %q with %s", s.args[:2], e, s.method, s.detail)
		}
	}

	d, projects := openStore(t, db)
	ctx := context.Background()
	if _, err := d.ExecContext(ctx, `DROP TABLE audit_events`); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"project", "add-origin", "--project", id, "--origin", "https://other.test"},
		{"project", "add-redirect-url", "--project", id, "--url", "https://shop.test/z"},
		{"project", "update", "--project", id, "--name", "Unrecorded"},
		{"project", "oauth", "--project", id, "--provider", "github", "--client-id", "g", "--client-secret", "s"},
		{"project", "rbac", "set", "--project", id, "--file", policy, "--force"},
		{"project", "token-profile", "create", "--project", id, "--issuer", "https://idp3.test", "--audience", "x",
			"--jwks-url", "https://idp3.test/jwks"},
		{"project", "session-migration", "--project", id, "--userinfo-url", "-"},
		{"project", "create", "--name", "Unrecorded"},
	} {
		if code, out, _ := runCLI(t, db, args...); code == 0 {
			t.Errorf("%v succeeded without its audit event: %s", args, out)
		}
	}
	if o, _ := projects.Origins(ctx, id); len(o) != 0 {
		t.Errorf("origins after refused changes: %v", o)
	}
	if p, _ := projects.ByID(ctx, id); p.Name != "Shop 2" {
		t.Errorf("name after a refused update: %q", p.Name)
	}
	for _, c := range []struct {
		query string
		want  int
	}{
		{`SELECT COUNT(*) FROM oauth_provider_configs WHERE provider = 'github'`, 0},
		{`SELECT COUNT(*) FROM project_redirect_urls WHERE url = 'https://shop.test/z'`, 0},
		{`SELECT COUNT(*) FROM trusted_auth_token_profiles`, 1},
		{`SELECT COUNT(*) FROM session_migration_settings`, 1},
		{`SELECT COUNT(*) FROM projects`, 1},
	} {
		var n int
		if err := d.QueryRowContext(ctx, c.query).Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n != c.want {
			t.Errorf("%s = %d after the refused changes, want %d", c.query, n, c.want)
		}
	}
}
