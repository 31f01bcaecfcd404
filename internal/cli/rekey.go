package cli

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/latchkey/latchkey/internal/app"
	"github.com/latchkey/latchkey/internal/changefeed"
	"github.com/latchkey/latchkey/internal/secretbox"
)

// newKeyEnv is the other way to hand rekey the new key: like
// LATCHKEY_ENCRYPTION_KEY, an environment variable, never a flag's value
// (which would stay in shell history and show in ps).
const newKeyEnv = "LATCHKEY_NEW_ENCRYPTION_KEY"

// recentChange is how recent a change row must be for rekey to warn that
// a server may still be running.
const recentChange = 2 * time.Minute

var errBadNewKey = errors.New("the new key must be 32 random bytes in standard base64 (openssl rand -base64 32)")

// rekeyCmd rotates the encryption key: it opens the database with the
// current key (LATCHKEY_ENCRYPTION_KEY, or dev's key file), as every
// command does, and reseals every sealed value under the new key in one
// transaction (app.Rekey).
func rekeyCmd(ctx context.Context, env Env) error {
	fs := newFlags("rekey")
	file := fs.String("new-key-file", "", "file holding the new key, 32 random bytes in standard base64 "+
		"(or set "+newKeyEnv+")")
	if err := parseFlags(fs, env.Args[1:]); err != nil {
		return err
	}
	fromEnv, inEnv := env.Lookup(newKeyEnv)
	var raw string
	switch {
	case *file != "" && inEnv:
		return usageErrorf("rekey", "give the new key once: --new-key-file or %s, not both", newKeyEnv)
	case *file != "":
		b, err := os.ReadFile(*file)
		if err != nil {
			return fmt.Errorf("read the new key: %w", err)
		}
		raw = string(b)
	case inEnv:
		raw = fromEnv
	default:
		return usageErrorf("rekey", "the new key is required: --new-key-file PATH or %s", newKeyEnv)
	}
	newKey, err := secretbox.ParseKey(raw)
	if err != nil {
		return errBadNewKey // never echo what was given
	}
	cfg, err := cliConfig(env)
	if err != nil {
		return err
	}
	if cur, _ := secretbox.ParseKey(cfg.EncryptionKey); bytes.Equal(cur, newKey) {
		return app.ErrSameKey
	}
	to, err := secretbox.New(newKey)
	if err != nil {
		return err
	}
	// app.New checks the current key and reseals what earlier versions
	// sealed differently, so every value is in the form Rekey reseals.
	a, err := newCLIApp(ctx, cfg)
	if err != nil {
		return err
	}
	defer a.Close()
	if age, ok, err := changefeed.LastChange(ctx, a.DB); err == nil && ok && age < recentChange {
		fmt.Fprintf(env.Stderr, "latchkey rekey: warning: the database was written %s ago; "+
			"stop every server first (one still running seals new secrets with the old key)\n", age.Round(time.Second))
	}
	resealed, err := a.Rekey(ctx, to)
	if err != nil {
		return err
	}
	if err := encodeLines(env, resealed); err != nil {
		return err
	}
	where := "LATCHKEY_ENCRYPTION_KEY"
	if v, _ := env.Lookup("LATCHKEY_ENCRYPTION_KEY"); v == "" {
		where = "the key file " + keyFileName(cfg.DatabaseURL) + " (write the new key into it)"
	}
	fmt.Fprintf(env.Stderr, "latchkey rekey: every secret is now sealed with the new key: start the servers with it in %s; "+
		"the old key is refused from now on\n", where)
	return nil
}

// keyFileName is dev's key file for dsn, as resolveKey read it.
func keyFileName(dsn string) string {
	path, _, err := devKeyPath(dsn)
	if err != nil {
		return devKeyFile
	}
	return path
}
