// Package atrest keeps secrets that must stay readable (signing private
// keys, TOTP secrets, OAuth client secrets) encrypted in the database with
// the operator's LATCHKEY_ENCRYPTION_KEY (package secretbox).
//
// A sealed value is bound to its place (table, column and row key) through
// the AEAD's associated data, so a value copied into another row, or another
// column, does not open there. Every column that holds such a secret is
// described once by a Column. At start-up, CheckKey first proves the
// configured key is the one already in use (so nothing is ever sealed under
// a second key), then SealExisting encrypts any plaintext left from before a
// key was configured, so serve, migrate and the CLI all leave the database
// sealed under one key.
package atrest

import (
	"context"
	"errors"
	"fmt"
	"regexp"

	"github.com/latchkey/latchkey/internal/secretbox"
	"github.com/latchkey/latchkey/internal/store"
)

// ErrNoKey is returned when a secret must be sealed or opened but no
// encryption key is configured.
var ErrNoKey = errors.New("atrest: no encryption key configured (LATCHKEY_ENCRYPTION_KEY)")

// Column names a TEXT column whose values are sealed at rest, and the
// primary-key column that identifies each row.
type Column struct {
	Table  string // e.g. "signing_keys"
	Key    string // primary key column, e.g. "kid"
	Column string // the sealed column, e.g. "private_key_pem"
	// SharedAAD, when set, is the associated data of every row's value:
	// a column whose values are not bound to their rows (the mail queue's).
	SharedAAD string
}

// AAD is the associated data a row's value is sealed with.
func (c Column) AAD(id string) string {
	if c.SharedAAD != "" {
		return c.SharedAAD
	}
	return c.Table + "." + c.Column + ":" + id
}

// SealStored returns what to store in c for row id.
func (c Column) SealStored(box *secretbox.Box, id, plaintext string) (string, error) {
	if box == nil {
		return "", fmt.Errorf("atrest: seal %s.%s: %w", c.Table, c.Column, ErrNoKey)
	}
	return box.Seal(plaintext, c.AAD(id)), nil
}

// OpenStored returns the plaintext of a value read from c for row id. A
// value that is not sealed yet (written before a key was configured, and not
// yet reached by SealExisting) is returned as it is.
func (c Column) OpenStored(box *secretbox.Box, id, stored string) (string, error) {
	if !secretbox.IsSealed(stored) {
		return stored, nil
	}
	if box == nil {
		return "", fmt.Errorf("atrest: open %s.%s: %w", c.Table, c.Column, ErrNoKey)
	}
	pt, err := box.Open(stored, c.AAD(id))
	if err != nil {
		return "", fmt.Errorf("atrest: open %s.%s %s: %w", c.Table, c.Column, id, err)
	}
	return pt, nil
}

var ident = regexp.MustCompile(`^[a-z_][a-z0-9_]*$`)

// check refuses a Column whose names are not plain identifiers, before
// any SQL is built from them.
func (c Column) check() error {
	if !ident.MatchString(c.Table) || !ident.MatchString(c.Key) || !ident.MatchString(c.Column) {
		return fmt.Errorf("atrest: bad column %+v", c)
	}
	return nil
}

// SealExisting encrypts every plaintext value of the given columns and
// returns how many it sealed. It is idempotent and safe to run from several
// replicas at once: each row is updated only while it still holds the
// plaintext that was read.
func SealExisting(ctx context.Context, db *store.DB, box *secretbox.Box, cols ...Column) (int, error) {
	if box == nil {
		return 0, ErrNoKey
	}
	total := 0
	for _, c := range cols {
		if err := c.check(); err != nil {
			return total, err
		}
		n, err := sealColumn(ctx, db, box, c)
		total += n
		if err != nil {
			return total, err
		}
	}
	return total, nil
}

func sealColumn(ctx context.Context, db *store.DB, box *secretbox.Box, c Column) (int, error) {
	// Identifiers come from the fixed Column list, checked above; values
	// are bound as parameters.
	rows, err := db.QueryContext(ctx, `SELECT `+c.Key+`, `+c.Column+` FROM `+c.Table+
		` WHERE `+c.Column+` NOT LIKE $1`, secretbox.Prefix+"%")
	if err != nil {
		return 0, fmt.Errorf("atrest: scan %s.%s: %w", c.Table, c.Column, err)
	}
	type row struct{ id, val string }
	var plain []row
	for rows.Next() {
		var r row
		if err := rows.Scan(&r.id, &r.val); err != nil {
			rows.Close()
			return 0, fmt.Errorf("atrest: scan %s.%s: %w", c.Table, c.Column, err)
		}
		if r.val != "" {
			plain = append(plain, r)
		}
	}
	if err := rows.Close(); err != nil {
		return 0, fmt.Errorf("atrest: scan %s.%s: %w", c.Table, c.Column, err)
	}
	n := 0
	for _, r := range plain {
		res, err := db.ExecContext(ctx, `UPDATE `+c.Table+` SET `+c.Column+` = $1 WHERE `+c.Key+` = $2 AND `+c.Column+` = $3`,
			box.Seal(r.val, c.AAD(r.id)), r.id, r.val)
		if err != nil {
			return n, fmt.Errorf("atrest: seal %s.%s %s: %w", c.Table, c.Column, r.id, err)
		}
		if k, _ := res.RowsAffected(); k > 0 {
			n++
		}
	}
	return n, nil
}
