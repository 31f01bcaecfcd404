package cli

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/latchkey/latchkey/internal/app"
	"github.com/latchkey/latchkey/internal/atrest"
	"github.com/latchkey/latchkey/internal/config"
	"github.com/latchkey/latchkey/internal/secretbox"
	"github.com/latchkey/latchkey/internal/store"
)

// devKeyFile is the dev mode's encryption key, kept beside the SQLite file.
const devKeyFile = "encryption.key"

// devKeyPath is where `latchkey dev` keeps its generated key: beside the
// SQLite database, or in ./data for a PostgreSQL URL. It refuses a
// database URL the store would refuse (that value is no file's path).
func devKeyPath(dsn string) (string, store.Dialect, error) {
	d, target, err := store.ParseDSN(dsn)
	if err != nil {
		return "", "", fmt.Errorf("LATCHKEY_DATABASE_URL: %w", err)
	}
	if d == store.Postgres {
		return filepath.Join("data", devKeyFile), d, nil
	}
	return filepath.Join(filepath.Dir(target), devKeyFile), d, nil
}

// resolveKey fills cfg.EncryptionKey for serve, dev, migrate and the other
// commands alike: LATCHKEY_ENCRYPTION_KEY when set; else the key file that
// `latchkey dev` wrote beside a SQLite database (the file is as private as
// the database it unlocks); else, in dev mode only, a new key written
// there. Outside dev mode a missing key is an error that says what to set.
// A PostgreSQL database takes the file only in dev mode: the file is then
// ./data's, beside no database, and a production serve or CLI run from a
// checkout where `latchkey dev` once ran would seal the production
// database with the dev key.
func resolveKey(cfg *config.Config, dev bool) (generated string, err error) {
	if cfg.EncryptionKey != "" {
		if _, err := secretbox.ParseKey(cfg.EncryptionKey); err != nil {
			return "", errors.New("LATCHKEY_ENCRYPTION_KEY must be 32 random bytes in standard base64 (openssl rand -base64 32)")
		}
		return "", nil
	}
	path, dialect, err := devKeyPath(cfg.DatabaseURL)
	if err != nil {
		return "", err
	}
	if dialect == store.Postgres && !dev {
		if _, err := os.Stat(path); err == nil {
			return "", fmt.Errorf("%w (%s is `latchkey dev`'s key, read only in dev mode for a PostgreSQL database)",
				app.ErrNoEncryptionKey, path)
		}
		return "", app.ErrNoEncryptionKey
	}
	b, err := os.ReadFile(path)
	switch {
	case err == nil:
		if _, perr := secretbox.ParseKey(string(b)); perr != nil {
			return "", fmt.Errorf("encryption key file %s is malformed: want 32 random bytes in standard base64", path)
		}
		cfg.EncryptionKey = strings.TrimSpace(string(b))
		return "", nil
	case !errors.Is(err, fs.ErrNotExist):
		return "", fmt.Errorf("read encryption key file: %w", err)
	case !dev:
		return "", app.ErrNoEncryptionKey
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return "", fmt.Errorf("create data directory: %w", err)
	}
	key := secretbox.NewKey()
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return "", fmt.Errorf("write encryption key file: %w", err)
	}
	if _, err := f.WriteString(key + "\n"); err != nil {
		f.Close()
		return "", fmt.Errorf("write encryption key file: %w", err)
	}
	if err := f.Close(); err != nil {
		return "", fmt.Errorf("write encryption key file: %w", err)
	}
	cfg.EncryptionKey = key
	return path, nil
}

// cliConfig is the configuration of a command other than serve and dev
// (openDB, openApp): validated as serve validates it, so that no command
// runs on a configuration serve would refuse (migrate reporting success
// under a base URL serve then rejects); its encryption key resolved; and
// the folder of a SQLite database created as serve creates it, so a fresh
// setup may start with `latchkey migrate` or any other command.
func cliConfig(env Env) (config.Config, error) {
	// First: a misspelled variable may be why what follows fails.
	if msg := unknownVariables(env); msg != "" {
		fmt.Fprintf(env.Stderr, "latchkey %s: warning: %s\n", env.Args[0], msg)
	}
	cfg, err := loadConfig(env)
	if err != nil {
		return cfg, err
	}
	// Before the key and the folder: a refused configuration leaves
	// nothing behind, and its problems are all named at once.
	if err := cfg.Validate(); err != nil {
		return cfg, err
	}
	if _, err := resolveKey(&cfg, false); err != nil {
		return cfg, err
	}
	if err := sqliteFolder(cfg.DatabaseURL); err != nil {
		return cfg, err
	}
	return cfg, nil
}

// openDB loads the configuration with its encryption key, opens and
// migrates the database, checks the key opens the secrets already sealed,
// and seals any plaintext secrets, as serve does.
func openDB(ctx context.Context, env Env) (*store.DB, *secretbox.Box, error) {
	cfg, err := cliConfig(env)
	if err != nil {
		return nil, nil, err
	}
	k, _ := secretbox.ParseKey(cfg.EncryptionKey)
	box, err := secretbox.New(k)
	if err != nil {
		return nil, nil, err
	}
	db, err := store.Open(ctx, cfg.DatabaseURL)
	if err != nil {
		return nil, nil, err
	}
	if err := app.MigrateDB(ctx, db); err != nil {
		db.Close()
		return nil, nil, err
	}
	if err := app.CheckEncryptionKey(ctx, db, box); err != nil {
		db.Close()
		return nil, nil, err
	}
	if _, err := atrest.SealExisting(ctx, db, box, app.SealedColumns()...); err != nil {
		db.Close()
		return nil, nil, err
	}
	return db, box, nil
}
