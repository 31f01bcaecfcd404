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

// refuseLostDevKey refuses, before `latchkey dev` generates a key, a
// database whose key file is missing while it holds values sealed with a
// key: a new key would open none of them, and kept, it would stand in for
// the lost one at the next start. With LATCHKEY_ENCRYPTION_KEY set or the
// key file there, there is nothing to generate and nothing to say.
func refuseLostDevKey(ctx context.Context, cfg config.Config) error {
	if cfg.EncryptionKey != "" {
		return nil
	}
	path, _, err := devKeyPath(cfg.DatabaseURL)
	if err != nil {
		return err
	}
	if _, err := os.Stat(path); !errors.Is(err, fs.ErrNotExist) {
		return nil // resolveKey reads it, or says why it cannot
	}
	sealed, err := holdsSealed(ctx, cfg.DatabaseURL)
	if err != nil {
		return err
	}
	if sealed {
		return errKeyFileMissing(path)
	}
	return nil
}

// errKeyFileMissing is dev mode's refusal of a database whose secrets are
// sealed with the key of a key file that is gone.
func errKeyFileMissing(path string) error {
	return fmt.Errorf("the database holds secrets sealed with an encryption key, and its key file %s is missing: "+
		"restore the file or set LATCHKEY_ENCRYPTION_KEY to that key", path)
}

// holdsSealed reports whether the database at dsn holds values sealed
// with an encryption key. A SQLite file that does not exist holds none,
// and is not created here.
func holdsSealed(ctx context.Context, dsn string) (bool, error) {
	d, path, err := store.ParseDSN(dsn)
	if err != nil {
		return false, fmt.Errorf("LATCHKEY_DATABASE_URL: %w", err)
	}
	if d == store.SQLite {
		if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
			return false, nil
		}
	}
	db, err := store.Open(ctx, dsn)
	if err != nil {
		return false, err
	}
	defer db.Close()
	// A database never migrated holds nothing sealed, and is left as it
	// is (requireMigrated refuses it next, unless the command is migrate).
	if migrated, err := db.Migrated(ctx); err != nil || !migrated {
		return false, err
	}
	// An older schema may lack the tables asked about; app.New migrates
	// next in any case.
	if err := app.MigrateDB(ctx, db); err != nil {
		return false, err
	}
	return atrest.HasSealed(ctx, db, app.SealedColumns()...)
}

// wrongKeyFile is the refusal of a key read from dev's key file that does
// not open the database's secrets: app.ErrWrongEncryptionKey names the
// variable, which was not set.
type wrongKeyFile struct{ path string }

func (e *wrongKeyFile) Error() string {
	return "the encryption key in " + e.path + " is not the key this database's secrets are sealed with: " +
		"put that key back in the file or set LATCHKEY_ENCRYPTION_KEY to it (nothing was sealed with this one)"
}

func (e *wrongKeyFile) Unwrap() error { return app.ErrWrongEncryptionKey }

// nameKeySource makes a wrong-key error name where the key came from: the
// key file when LATCHKEY_ENCRYPTION_KEY is not set (resolveKey's rule).
func nameKeySource(env Env, err error) error {
	if !errors.Is(err, app.ErrWrongEncryptionKey) {
		return err
	}
	var named *wrongKeyFile
	if errors.As(err, &named) {
		return err
	}
	if v, _ := env.Lookup("LATCHKEY_ENCRYPTION_KEY"); v != "" {
		return err
	}
	path := devKeyFile
	if cfg, cerr := loadConfig(env); cerr == nil {
		path = keyFileName(cfg.DatabaseURL)
	}
	return &wrongKeyFile{path: path}
}

// cliConfig is the configuration of a command other than serve, dev and
// migrate (openDB, openApp): validated as serve validates it, so that no
// command runs on a configuration serve would refuse (migrate reporting
// success under a base URL serve then rejects); its encryption key
// resolved; and, for SQLite, a database that exists: only serve, dev and
// migrate create one, so a mistyped path is refused rather than becoming a
// new empty database (with its folder) that the command then reports on.
func cliConfig(env Env) (config.Config, error) { return loadCLIConfig(env, false) }

// loadCLIConfig is cliConfig; create (migrate) makes the folder of a new
// SQLite database as serve does instead of requiring the database, so a
// fresh setup may start with `latchkey migrate`.
func loadCLIConfig(env Env, create bool) (config.Config, error) {
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
	if !create {
		if err := sqliteExists(cfg.DatabaseURL); err != nil {
			return cfg, err
		}
	}
	if _, err := resolveKey(&cfg, false); err != nil {
		return cfg, err
	}
	if create {
		if err := sqliteFolder(cfg.DatabaseURL); err != nil {
			return cfg, err
		}
	}
	return cfg, nil
}

// sqliteExists refuses a SQLite database that does not exist. It names
// the path unless the path holds '@': then it is more likely a PostgreSQL
// URL without its scheme, password included.
func sqliteExists(dsn string) error {
	path, err := sqlitePath(dsn)
	if err != nil || path == "" {
		return err
	}
	_, err = os.Stat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist) && strings.Contains(path, "@"):
		return errors.New("no database at the path LATCHKEY_DATABASE_URL names (run `latchkey migrate` first; " +
			"a PostgreSQL URL starts with postgres://)")
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("no database at %s (run `latchkey migrate` first)", path)
	case err != nil:
		return fmt.Errorf("LATCHKEY_DATABASE_URL: %w", err)
	}
	return nil
}

// requireMigrated refuses a database that was never migrated, as
// sqliteExists refuses a missing SQLite file: every command but migrate
// works on an existing Latchkey database, and one run against the wrong
// PostgreSQL database (or an empty file) must not make it one. The URL is
// not echoed: it may hold a password.
func requireMigrated(ctx context.Context, db *store.DB) error {
	ok, err := db.Migrated(ctx)
	if err != nil {
		return err
	}
	if !ok {
		return errors.New("the database LATCHKEY_DATABASE_URL names holds no Latchkey schema (run `latchkey migrate` first)")
	}
	return nil
}

// openDB loads the configuration with its encryption key, opens and
// migrates the database, checks the key opens the secrets already sealed,
// and seals any plaintext secrets, as serve does.
func openDB(ctx context.Context, env Env) (*store.DB, *secretbox.Box, error) {
	return openDBFor(ctx, env, false)
}

// openDBFor is openDB; create is loadCLIConfig's (migrate).
func openDBFor(ctx context.Context, env Env, create bool) (*store.DB, *secretbox.Box, error) {
	cfg, err := loadCLIConfig(env, create)
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
	if !create {
		if err := requireMigrated(ctx, db); err != nil {
			db.Close()
			return nil, nil, err
		}
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
