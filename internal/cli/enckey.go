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
// SQLite database, or in ./data for a PostgreSQL URL.
func devKeyPath(dsn string) string {
	if strings.HasPrefix(dsn, "postgres://") || strings.HasPrefix(dsn, "postgresql://") {
		return filepath.Join("data", devKeyFile)
	}
	p := strings.TrimPrefix(strings.TrimPrefix(dsn, "sqlite:"), "file:")
	if i := strings.IndexByte(p, '?'); i >= 0 {
		p = p[:i]
	}
	return filepath.Join(filepath.Dir(p), devKeyFile)
}

// resolveKey fills cfg.EncryptionKey for serve, dev, migrate and the other
// commands alike: LATCHKEY_ENCRYPTION_KEY when set; else the key file that
// `latchkey dev` wrote beside the database (the file is as private as the
// database it unlocks); else, in dev mode only, a new key written there.
// Outside dev mode a missing key is an error that says what to set.
func resolveKey(cfg *config.Config, dev bool) (generated string, err error) {
	if cfg.EncryptionKey != "" {
		if _, err := secretbox.ParseKey(cfg.EncryptionKey); err != nil {
			return "", errors.New("LATCHKEY_ENCRYPTION_KEY must be 32 random bytes in standard base64 (openssl rand -base64 32)")
		}
		return "", nil
	}
	path := devKeyPath(cfg.DatabaseURL)
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

// openDB loads the configuration with its encryption key, opens and
// migrates the database, checks the key opens the secrets already sealed,
// and seals any plaintext secrets, as serve does.
func openDB(ctx context.Context, env Env) (*store.DB, *secretbox.Box, error) {
	cfg, err := loadConfig(env)
	if err != nil {
		return nil, nil, err
	}
	if _, err := resolveKey(&cfg, false); err != nil {
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
