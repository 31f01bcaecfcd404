package cli

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/latchkey/latchkey/internal/secretbox"
)

// rekey takes the new key from a file or LATCHKEY_NEW_ENCRYPTION_KEY
// (never from a flag's value), refuses a malformed one without echoing it
// and the key already in use, and changes nothing when it refuses. After
// it, the database opens with the new key only and its secrets read back.
func TestRekeyCommand(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	dir := t.TempDir()
	db := filepath.Join(dir, "rekey.db")
	id, _ := createProject(t, db)
	if code, _, errs := runIn(t, ctx, db, "gh-s3cret\n", nil, "project", "oauth", "--project", id, "--provider", "github",
		"--client-id", "gh", "--client-secret-stdin"); code != 0 {
		t.Fatalf("project oauth: %s", errs)
	}
	newKey := secretbox.NewKey()
	file := func(name, content string) string {
		p := filepath.Join(dir, name)
		writeFile(t, p, content)
		return p
	}
	keyFile, sameFile, badFile := file("new.key", newKey+"\n"), file("same.key", testKey+"\n"), file("bad.key", "not-a-key-at-all\n")

	for _, c := range []struct {
		args []string
		env  map[string]string
		code int
		want string
	}{
		{[]string{"rekey"}, nil, 2, "the new key is required"},
		{[]string{"rekey", "--new-key-file", keyFile}, map[string]string{newKeyEnv: newKey}, 2, "not both"},
		{[]string{"rekey", "--new-key"}, nil, 2, "flag provided but not defined"},
		{[]string{"rekey", "--new-key-file", badFile}, nil, 1, "32 random bytes in standard base64"},
		{[]string{"rekey"}, map[string]string{newKeyEnv: "c2hvcnQ="}, 1, "32 random bytes in standard base64"},
		{[]string{"rekey", "--new-key-file", sameFile}, nil, 1, "already in use"},
		{[]string{"rekey"}, map[string]string{newKeyEnv: testKey}, 1, "already in use"},
		{[]string{"rekey", "--new-key-file", filepath.Join(dir, "missing.key")}, nil, 1, "read the new key"},
	} {
		code, out, errs := runIn(t, ctx, db, "", c.env, c.args...)
		if code != c.code || out != "" || !strings.Contains(errs, c.want) || strings.Contains(errs, "not-a-key") {
			t.Errorf("%v %v: exit %d, stdout %q, stderr %q; want exit %d saying %q", c.args, c.env, code, out, errs, c.code, c.want)
		}
	}
	if code, out, _ := runCLI(t, db, "rekey", "--help"); code != 0 || !strings.Contains(out, "stop every server") {
		t.Errorf("rekey --help: exit %d %q", code, out)
	}
	// Nothing changed by the refusals: the old key still opens everything.
	if len(keyList(t, db, id)) != 1 {
		t.Fatal("keys after the refusals")
	}

	code, out, errs := runCLI(t, db, "rekey", "--new-key-file", keyFile)
	if code != 0 || !strings.Contains(out, `{"place":"signing_keys.private_key_pem","resealed":1}`) ||
		!strings.Contains(out, `{"place":"oauth_provider_configs.client_secret","resealed":1}`) ||
		!strings.Contains(errs, "LATCHKEY_ENCRYPTION_KEY") || strings.Contains(out, "LATCHKEY_ENCRYPTION_KEY") {
		t.Fatalf("rekey: exit %d, stdout %q, stderr %q", code, out, errs)
	}
	// The project was created moments ago: the change feed says the
	// database was just written, as it would with a server still running.
	if !strings.Contains(errs, "warning") || !strings.Contains(errs, "stop every server") {
		t.Errorf("no warning of recent writes: %q", errs)
	}
	if code, _, errs := runCLI(t, db, "keys", "list", "--project", id); code != 1 || !strings.Contains(errs, "is not the key") {
		t.Fatalf("old key after rekey: exit %d %q; want it refused", code, errs)
	}
	withNew := Env{Lookup: func(k string) (string, bool) {
		v, ok := map[string]string{"LATCHKEY_DATABASE_URL": db, "LATCHKEY_ENCRYPTION_KEY": newKey}[k]
		return v, ok
	}}
	a, err := openApp(ctx, withNew)
	if err != nil {
		t.Fatalf("new key after rekey: %v", err)
	}
	defer a.Close()
	if c, err := a.OAuth.LoadConfig(ctx, id, "github"); err != nil || c.ClientSecret != "gh-s3cret" {
		t.Errorf("OAuth client secret with the new key: %v", err)
	}
	if keys, err := a.Projects.SigningKeys(ctx, id); err != nil || len(keys) != 1 {
		t.Errorf("signing keys with the new key: %v", err)
	}
}
