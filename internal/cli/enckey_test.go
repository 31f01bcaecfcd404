package cli

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/latchkey/latchkey/internal/clock"
	"github.com/latchkey/latchkey/internal/project"
	"github.com/latchkey/latchkey/internal/secretbox"
)

// A command run with another LATCHKEY_ENCRYPTION_KEY than the one the
// database's secrets are sealed with must refuse to start: otherwise it
// seals new secrets with the wrong key, and the database ends up under two
// keys. Here one `keys rotate` with a mistyped key leaves the project with
// a newest signing key the real key cannot open, and SigningKeys (which
// opens every key) fails for the project from then on: no session can be
// signed or verified.
func TestWrongEncryptionKeyIsRefused(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "wrong.db")
	id, _ := createProject(t, db)

	other := secretbox.NewKey()
	var out, errb bytes.Buffer
	env := map[string]string{"LATCHKEY_DATABASE_URL": db, "LATCHKEY_ENCRYPTION_KEY": other}
	code := Run(context.Background(), Env{Args: []string{"keys", "rotate", "--project", id}, Stdout: &out, Stderr: &errb,
		Lookup: func(k string) (string, bool) { v, ok := env[k]; return v, ok }})

	d, _ := openStore(t, db) // the right key
	k, _ := secretbox.ParseKey(testKey)
	box, _ := secretbox.New(k)
	_, serr := project.NewStore(d, clock.Real{}, box).SigningKeys(context.Background(), id)
	if code == 0 {
		t.Fatalf("keys rotate ran with a key that does not open the database's secrets (stdout %q); "+
			"the project's signing keys with the right key now give: %v", out.String(), serr)
	}
	if serr != nil {
		t.Fatalf("the refused command still broke the project's signing keys: %v", serr)
	}
}

// Every command refuses a wrong key with a message that names the setting
// and not the key; `latchkey dev` on a database whose key file is missing
// refuses too, and does not keep the key it generated, which would stand
// in for the lost one at the next start.
func TestWrongOrMissingKeyMessages(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	db := filepath.Join(dir, "sealed.db")
	createProject(t, db) // sealed with testKey, given in the environment: no key file
	other := secretbox.NewKey()
	run := func(env map[string]string, args ...string) (int, string) {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		var out, errb bytes.Buffer
		code := Run(ctx, Env{Args: args, Stdout: &out, Stderr: &errb,
			Lookup: func(k string) (string, bool) { v, ok := env[k]; return v, ok }})
		return code, errb.String()
	}
	for _, args := range [][]string{{"migrate"}, {"project", "list"}, {"serve", "--addr", "127.0.0.1:0"}} {
		code, errs := run(map[string]string{"LATCHKEY_DATABASE_URL": db, "LATCHKEY_ENCRYPTION_KEY": other}, args...)
		if code == 0 || !strings.Contains(errs, "LATCHKEY_ENCRYPTION_KEY is not the key") || strings.Contains(errs, other) {
			t.Errorf("%v with a wrong key: exit %d, stderr %q", args, code, errs)
		}
	}
	code, errs := run(map[string]string{"LATCHKEY_DATABASE_URL": db, "LATCHKEY_ADDR": "127.0.0.1:0"}, "dev")
	if code == 0 || !strings.Contains(errs, "key file") || !strings.Contains(errs, "is missing") {
		t.Errorf("dev without its key file: exit %d, stderr %q", code, errs)
	}
	// The refusal is all it says: dev looks for sealed values before it
	// makes up a key, and does not announce one it then throws away.
	if strings.Contains(errs, "generated") {
		t.Errorf("dev without its key file announced a new key before refusing: %q", errs)
	}
	if _, err := os.Stat(filepath.Join(dir, devKeyFile)); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("dev kept the key it generated for a database sealed with another: %v", err)
	}
}

// A wrong key read from the key file beside a SQLite database is named as
// that file's: the message blamed LATCHKEY_ENCRYPTION_KEY, which was not
// set.
func TestWrongKeyFileIsNamed(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	db := filepath.Join(dir, "sealed.db")
	createProject(t, db) // sealed with testKey, given in the environment
	keyFile := filepath.Join(dir, devKeyFile)
	writeFile(t, keyFile, secretbox.NewKey()+"\n")
	env := map[string]string{"LATCHKEY_DATABASE_URL": db}
	for _, args := range [][]string{{"project", "list"}, {"migrate"}, {"serve", "--addr", "127.0.0.1:0"},
		{"dev", "--addr", "127.0.0.1:0", "--force"}} {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		var out, errb bytes.Buffer
		code := Run(ctx, Env{Args: args, Stdout: &out, Stderr: &errb,
			Lookup: func(k string) (string, bool) { v, ok := env[k]; return v, ok }})
		cancel()
		errs := errb.String()
		if code != 1 || !strings.Contains(errs, "the encryption key in "+keyFile+" is not the key") ||
			strings.Contains(errs, "LATCHKEY_ENCRYPTION_KEY is not the key") {
			t.Errorf("%v with a wrong key file: exit %d, stderr %q", args, code, errs)
		}
	}
}
