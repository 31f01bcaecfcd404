package cli

import (
	"bytes"
	"context"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/latchkey/latchkey/internal/apptest/testkeys"
	"github.com/latchkey/latchkey/internal/clock"
	"github.com/latchkey/latchkey/internal/config"
	"github.com/latchkey/latchkey/internal/project"
	"github.com/latchkey/latchkey/internal/secretbox"
	"github.com/latchkey/latchkey/internal/store"
)

func createProject(t *testing.T, db string) (id, secret string) {
	t.Helper()
	code, out, errs := runCLI(t, db, "project", "create", "--name", "Shop")
	if code != 0 {
		t.Fatalf("create: %s", errs)
	}
	var raw map[string]string
	if err := json.Unmarshal([]byte(out), &raw); err != nil {
		t.Fatal(err)
	}
	return raw["project_id"], raw["secret"]
}

func keyList(t *testing.T, db, id string) []project.KeyInfo {
	t.Helper()
	code, out, errs := runCLI(t, db, "keys", "list", "--project", id)
	if code != 0 {
		t.Fatalf("keys list: %s", errs)
	}
	var keys []project.KeyInfo
	dec := json.NewDecoder(strings.NewReader(out))
	for dec.More() {
		var k project.KeyInfo
		if err := dec.Decode(&k); err != nil {
			t.Fatal(err)
		}
		keys = append(keys, k)
	}
	return keys
}

func openStore(t *testing.T, db string) (*store.DB, *project.Store) {
	t.Helper()
	d, err := store.Open(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	k, _ := secretbox.ParseKey(testKey)
	box, _ := secretbox.New(k)
	return d, project.NewStore(d, clock.Real{}, box)
}

func TestKeysRotateListRetire(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "k.db")
	id, _ := createProject(t, db)
	first := keyList(t, db, id)
	if len(first) != 1 || !first[0].Signing {
		t.Fatalf("new project keys = %+v", first)
	}
	if code, _, errs := runCLI(t, db, "keys", "retire", "--project", id, "--kid", first[0].KID); code == 0 ||
		!strings.Contains(errs, "only signing key") {
		t.Fatalf("retiring the only key: exit %d %s", code, errs)
	}
	code, out, errs := runCLI(t, db, "keys", "rotate", "--project", id)
	if code != 0 {
		t.Fatalf("rotate: %s", errs)
	}
	// The new key is published at once and signs a minute later; until
	// then the old one signs. The command says when.
	var rotated struct {
		KID         string `json:"kid"`
		ActivatesAt int64  `json:"activates_at"`
		Note        string `json:"note"`
	}
	if err := json.Unmarshal([]byte(out), &rotated); err != nil {
		t.Fatalf("rotate output %q: %v", out, err)
	}
	both := keyList(t, db, id)
	if len(both) != 2 || both[0].KID != rotated.KID || both[1].KID != first[0].KID || both[0].Signing || !both[1].Signing ||
		both[0].ActivatesAt != rotated.ActivatesAt || rotated.ActivatesAt != both[0].CreatedAt+project.SigningKeyLead.Milliseconds() {
		t.Fatalf("after rotate (%s): %+v", out, both)
	}
	if at := time.UnixMilli(rotated.ActivatesAt).UTC().Format(time.RFC3339); !strings.Contains(rotated.Note, "signs new tokens from "+at) {
		t.Fatalf("rotate's note does not say when the key signs (%s): %q", at, rotated.Note)
	}
	// Retiring the signing key while the new one is pending (a leaked
	// key) makes the new one sign at once.
	if code, out, errs := runCLI(t, db, "keys", "retire", "--project", id, "--kid", first[0].KID); code != 0 ||
		!strings.Contains(out, "retired") {
		t.Fatalf("retire: %d %s %s", code, out, errs)
	}
	if left := keyList(t, db, id); len(left) != 1 || left[0].KID != both[0].KID || !left[0].Signing ||
		left[0].ActivatesAt >= rotated.ActivatesAt {
		t.Fatalf("after retire: %+v", left)
	}
	code, rotatedSecret, errs := runCLI(t, db, "project", "rotate-secret", "--project", id)
	if code != 0 {
		t.Fatalf("rotate-secret: %s", errs)
	}
	var secret struct{ Secret string }
	_ = json.Unmarshal([]byte(rotatedSecret), &secret)
	// The oldest event, the project's creation (config_changed), is left
	// out by --limit.
	code, out, errs = runCLI(t, db, "audit", "--project", id, "--limit", "3")
	if code != 0 {
		t.Fatalf("audit: %s", errs)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 3 || !strings.Contains(lines[0], `"event_type":"secret_rotated"`) ||
		!strings.Contains(out, `"event_type":"signing_key_retired"`) || !strings.Contains(out, `"event_type":"signing_key_rotated"`) ||
		!strings.Contains(out, first[0].KID) || secret.Secret == "" || strings.Contains(out, secret.Secret) || !strings.Contains(lines[0], `"actor":"cli"`) {
		t.Fatalf("audit output:\n%s", out)
	}
	if code, out, _ := runCLI(t, db, "audit", "--project", id, "--type", "signing_key_retired"); code != 0 || strings.Count(out, "\n") != 1 {
		t.Fatalf("audit --type: %s", out)
	}
	for _, bad := range [][]string{
		{"audit"},
		{"audit", "--project", "project-test-missing"},
		{"keys", "retire", "--project", id, "--kid", first[0].KID},
		{"keys", "retire", "--project", id},
		{"keys", "frob", "--project", id},
		{"keys"},
	} {
		if code, _, errs := runCLI(t, db, bad...); code == 0 || errs == "" {
			t.Errorf("%v: exit %d %q", bad, code, errs)
		}
	}
}

func TestRotateSecret(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "s.db")
	id, old := createProject(t, db)
	_, projects := openStore(t, db)
	ctx := context.Background()
	rotate := func(args ...string) string {
		t.Helper()
		code, out, errs := runCLI(t, db, append([]string{"project", "rotate-secret", "--project", id}, args...)...)
		if code != 0 {
			t.Fatalf("rotate-secret: %s", errs)
		}
		var r struct {
			Secret   string `json:"secret"`
			SecretID string `json:"secret_id"`
		}
		if err := json.Unmarshal([]byte(out), &r); err != nil || !strings.HasPrefix(r.Secret, "secret-test-") {
			t.Fatalf("rotate-secret output %q", out)
		}
		return r.Secret
	}
	kept := rotate("--keep-old")
	for _, s := range []string{old, kept} {
		if _, err := projects.CheckSecret(ctx, id, s); err != nil {
			t.Fatalf("with --keep-old both secrets must work: %v", err)
		}
	}
	code, out, _ := runCLI(t, db, "project", "secrets", "--project", id)
	if code != 0 || strings.Count(out, "secret_id") != 2 || strings.Contains(out, kept) || strings.Contains(out, old) {
		t.Fatalf("secrets list: %s", out)
	}
	fresh := rotate()
	for _, s := range []string{old, kept} {
		if _, err := projects.CheckSecret(ctx, id, s); err == nil {
			t.Fatal("an earlier secret still works after rotate-secret")
		}
	}
	if _, err := projects.CheckSecret(ctx, id, fresh); err != nil {
		t.Fatalf("new secret: %v", err)
	}
	list, _ := projects.ListSecrets(ctx, id)
	if code, _, errs := runCLI(t, db, "project", "retire-secret", "--project", id, "--secret-id", list[0].SecretID); code == 0 ||
		!strings.Contains(errs, "only secret") {
		t.Fatalf("retiring the only secret: %d %s", code, errs)
	}
}

// Secrets are sealed at rest, a plaintext row left from before a key was
// configured is sealed by migrate, and no command runs without a key.
func TestEncryptionAtRest(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "e.db")
	id, _ := createProject(t, db)
	d, projects := openStore(t, db)
	ctx := context.Background()
	var stored string
	if err := d.Read().QueryRowContext(ctx, `SELECT private_key_pem FROM signing_keys WHERE project_id = $1`, id).Scan(&stored); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(stored, secretbox.Prefix) || strings.Contains(stored, "PRIVATE KEY") {
		t.Fatalf("signing key stored in clear: %.40q", stored)
	}

	// An old row in clear, as a database from before encryption holds it.
	key := testkeys.Next()
	der, _ := x509.MarshalPKCS8PrivateKey(key)
	pemText := string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}))
	if _, err := d.ExecContext(ctx, `INSERT INTO signing_keys (kid, project_id, private_key_pem, active, created_at)
		VALUES ('jwk-test-legacy', $1, $2, TRUE, 1)`, id, pemText); err != nil {
		t.Fatal(err)
	}
	if code, _, errs := runCLI(t, db, "migrate"); code != 0 {
		t.Fatalf("migrate: %s", errs)
	}
	if err := d.Read().QueryRowContext(ctx, `SELECT private_key_pem FROM signing_keys WHERE kid = 'jwk-test-legacy'`).Scan(&stored); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(stored, secretbox.Prefix) {
		t.Fatal("migrate left a plaintext signing key")
	}
	keys, err := projects.SigningKeys(ctx, id)
	if err != nil || len(keys) != 2 || keys[1].Private.N.Cmp(key.N) != 0 {
		t.Fatalf("sealed keys do not open to the originals: %v", err)
	}

	// Without a key, or with a malformed one, every command refuses to start.
	for _, k := range []string{"", "not-base64!", "c2hvcnQ="} {
		var out, errb bytes.Buffer
		env := map[string]string{"LATCHKEY_DATABASE_URL": db, "LATCHKEY_ENCRYPTION_KEY": k}
		code := Run(ctx, Env{Args: []string{"project", "list"}, Stdout: &out, Stderr: &errb,
			Lookup: func(s string) (string, bool) { v, ok := env[s]; return v, ok && v != "" }})
		if code == 0 || !strings.Contains(errb.String(), "LATCHKEY_ENCRYPTION_KEY") || (k != "" && strings.Contains(errb.String(), k)) {
			t.Errorf("key %q: exit %d, stderr %q", k, code, errb.String())
		}
	}
	// A wrong key cannot open what the right one sealed.
	wrong, _ := secretbox.ParseKey(secretbox.NewKey())
	wbox, _ := secretbox.New(wrong)
	if _, err := project.NewStore(d, clock.Real{}, wbox).SigningKeys(ctx, id); err == nil {
		t.Fatal("a wrong key opened the signing keys")
	}
}

// Dev mode keeps a generated key beside the SQLite file and reuses it;
// other commands on the same database find it there.
func TestDevKeyFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	cfg := config.Defaults()
	cfg.DatabaseURL = filepath.Join(dir, "sub", "dev.db")
	path, err := resolveKey(&cfg, true)
	if err != nil || path != filepath.Join(dir, "sub", "encryption.key") || cfg.EncryptionKey == "" {
		t.Fatalf("resolveKey(dev) = %q, %v", path, err)
	}
	if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("key file mode: %v %v", fi, err)
	}
	again := config.Defaults()
	again.DatabaseURL = cfg.DatabaseURL
	if p, err := resolveKey(&again, false); err != nil || p != "" || again.EncryptionKey != cfg.EncryptionKey {
		t.Fatalf("second resolve = %q %v; key reused: %v", p, err, again.EncryptionKey == cfg.EncryptionKey)
	}
	other := config.Defaults()
	other.DatabaseURL = filepath.Join(dir, "elsewhere.db")
	if _, err := resolveKey(&other, false); err == nil || !strings.Contains(err.Error(), "required outside dev mode") {
		t.Fatalf("no key outside dev: %v", err)
	}
	if err := os.WriteFile(filepath.Join(dir, "encryption.key"), []byte("garbage"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := resolveKey(&other, true); err == nil || !strings.Contains(err.Error(), "malformed") {
		t.Fatalf("malformed key file: %v", err)
	}
}

// A key or secret change and its audit event commit together: when the
// event cannot be written, the command fails and changes nothing. Before,
// rotate-secret deleted every earlier secret and committed, then failed on
// the audit write without printing the new one: the project was left with
// no secret anyone knew.
func TestAuditFailureRollsBackTheChange(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "a.db")
	id, old := createProject(t, db)
	if code, _, errs := runCLI(t, db, "keys", "rotate", "--project", id); code != 0 {
		t.Fatalf("rotate: %s", errs)
	}
	if code, _, errs := runCLI(t, db, "project", "rotate-secret", "--project", id, "--keep-old"); code != 0 {
		t.Fatalf("rotate-secret --keep-old: %s", errs)
	}
	d, projects := openStore(t, db)
	ctx := context.Background()
	keys, _ := projects.ListSigningKeys(ctx, id)
	secrets, _ := projects.ListSecrets(ctx, id)
	if _, err := d.ExecContext(ctx, `DROP TABLE audit_events`); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"project", "rotate-secret", "--project", id},
		{"project", "rotate-secret", "--project", id, "--keep-old"},
		{"project", "retire-secret", "--project", id, "--secret-id", secrets[1].SecretID},
		{"keys", "rotate", "--project", id},
		{"keys", "retire", "--project", id, "--kid", keys[1].KID},
	} {
		if code, out, _ := runCLI(t, db, args...); code == 0 {
			t.Errorf("%v succeeded without its audit event: %s", args, out)
		}
	}
	if _, err := projects.CheckSecret(ctx, id, old); err != nil {
		t.Fatalf("the project's secret after the failed commands: %v", err)
	}
	if k, _ := projects.ListSigningKeys(ctx, id); cmp.Diff(keys, k) != "" {
		t.Fatalf("signing keys changed (-before +after):\n%s", cmp.Diff(keys, k))
	}
	if s, _ := projects.ListSecrets(ctx, id); cmp.Diff(secrets, s) != "" {
		t.Fatalf("secrets changed (-before +after):\n%s", cmp.Diff(secrets, s))
	}
}
