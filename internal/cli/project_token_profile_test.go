package cli

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestProjectTokenProfile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	env := map[string]string{"LATCHKEY_DATABASE_URL": filepath.Join(dir, "cli.db"),
		"LATCHKEY_ENCRYPTION_KEY": "dGVzdC1rZXktMzItYnl0ZXMtbG9uZy1mb3ItbGF0Y2g="}
	run := func(args ...string) (int, string, string) {
		var out, errb bytes.Buffer
		code := Run(context.Background(), Env{Args: args, Stdout: &out, Stderr: &errb,
			Lookup: func(k string) (string, bool) { v, ok := env[k]; return v, ok }})
		return code, out.String(), errb.String()
	}
	if code, _, errs := run("migrate"); code != 0 { // only serve, dev and migrate create a database
		t.Fatalf("migrate: %s", errs)
	}
	code, out, errs := run("project", "create", "--name", "Shop")
	if code != 0 {
		t.Fatalf("create project: %s", errs)
	}
	var created map[string]string
	_ = json.Unmarshal([]byte(out), &created)
	id := created["project_id"]

	code, out, errs = run("project", "token-profile", "create", "--project", id, "--issuer", "https://idp.test",
		"--audience", "shop", "--jwks-url", "https://idp.test/jwks", "--email-claim", "mail", "--organization-id-claim", "org",
		"--can-jit-provision")
	if code != 0 {
		t.Fatalf("create jwk profile: %s", errs)
	}
	var jwk map[string]any
	_ = json.Unmarshal([]byte(out), &jwk)
	pid, _ := jwk["profile_id"].(string)
	mapping, _ := jwk["attribute_mapping"].(map[string]any)
	if !strings.HasPrefix(pid, "trusted-auth-token-profile-test-") || jwk["public_key_type"] != "jwk" ||
		mapping["email"] != "mail" || mapping["token_id"] != "jti" || mapping["organization_id"] != "org" ||
		jwk["can_jit_provision"] != true || jwk["active"] != true {
		t.Fatalf("jwk profile: %s", out)
	}

	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	der, _ := x509.MarshalPKIXPublicKey(&key.PublicKey)
	pemPath := filepath.Join(dir, "key.pem")
	if err := os.WriteFile(pemPath, pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
	code, out, errs = run("project", "token-profile", "create", "--project", id, "--issuer", "https://other.test",
		"--audience", "shop", "--pem-file", pemPath)
	if code != 0 || !strings.Contains(out, `"public_key_type":"pem"`) || !strings.Contains(out, "BEGIN PUBLIC KEY") {
		t.Fatalf("create pem profile: %d %s %s", code, out, errs)
	}

	code, out, _ = run("project", "token-profile", "list", "--project", id)
	if code != 0 || strings.Count(out, `"profile_id"`) != 2 {
		t.Fatalf("list: %s", out)
	}
	code, out, errs = run("project", "token-profile", "update", "--project", id, "--profile", pid, "--active", "false")
	if code != 0 || !strings.Contains(out, `"active":false`) {
		t.Fatalf("update: %d %s %s", code, out, errs)
	}
	if code, _, errs = run("project", "token-profile", "delete", "--project", id, "--profile", pid); code != 0 {
		t.Fatalf("delete: %s", errs)
	}
	code, out, _ = run("project", "token-profile", "list", "--project", id)
	if code != 0 || strings.Count(out, `"profile_id"`) != 1 || strings.Contains(out, pid) {
		t.Fatalf("list after delete: %s", out)
	}

	code, out, errs = run("project", "session-migration", "--project", id, "--userinfo-url", "https://old-idp.test/userinfo")
	if code != 0 || !strings.Contains(out, `"userinfo_url":"https://old-idp.test/userinfo"`) {
		t.Fatalf("session-migration: %d %s %s", code, out, errs)
	}
	if code, out, _ = run("project", "session-migration", "--project", id, "--userinfo-url", "-"); code != 0 || !strings.Contains(out, `"userinfo_url":""`) {
		t.Fatalf("session-migration off: %s", out)
	}

	for _, bad := range [][]string{
		{"project", "session-migration", "--project", id, "--userinfo-url", "http://old-idp.test/userinfo"},
		{"project", "session-migration", "--project", id},
		{"project", "token-profile", "create", "--project", id, "--audience", "shop", "--jwks-url", "https://idp.test/jwks"},
		{"project", "token-profile", "create", "--project", id, "--issuer", "i", "--jwks-url", "https://idp.test/jwks"},
		{"project", "token-profile", "create", "--project", id, "--issuer", "i", "--audience", "a"},
		{"project", "token-profile", "create", "--project", id, "--issuer", "i", "--audience", "a", "--jwks-url", "http://idp.test/jwks"},
		{"project", "token-profile", "create", "--project", id, "--issuer", "i", "--audience", "a", "--jwks-url", "https://x.test/j", "--pem-file", pemPath},
		{"project", "token-profile", "create", "--project", id, "--issuer", "i", "--audience", "a", "--pem-file", filepath.Join(dir, "cli.db")},
		{"project", "token-profile", "create", "--project", id, "--issuer", "i", "--audience", "a", "--jwks-url", "https://x.test/j", "--can-jit-provision"},
		{"project", "token-profile", "update", "--project", id, "--profile", pid, "--active", "maybe"},
		{"project", "token-profile", "delete", "--project", id, "--profile", pid},
		{"project", "token-profile", "list", "--project", "project-test-nope"},
		{"project", "token-profile", "rename", "--project", id},
	} {
		if code, _, _ := run(bad...); code == 0 {
			t.Errorf("%v succeeded", bad)
		}
	}
}
