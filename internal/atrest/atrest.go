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

// PlaintextCond is the SQL condition that matches the values of c still
// to be sealed: not empty (an empty value means "no secret") and without
// secretbox.Prefix. Every column SealExisting is given has a partial index
// on its key with exactly this predicate, in its table's migrations
// (store 0113, oauth 0007, sso 0007): an engine uses a partial index only
// for a query that repeats its condition, and with it a start that finds
// nothing to seal reads an empty index, whatever the table holds.
func (c Column) PlaintextCond() string {
	return c.Column + ` <> '' AND substr(` + c.Column + `, 1, ` + fmt.Sprint(len(secretbox.Prefix)) + `) <> '` +
		secretbox.Prefix + `'`
}

// PlaintextQuery is the statement that reads, in key order, a batch of c's
// values still to be sealed after the key $1 (see PlaintextCond).
func (c Column) PlaintextQuery() string {
	return `SELECT ` + c.Key + `, ` + c.Column + ` FROM ` + c.Table + ` WHERE ` + c.PlaintextCond() +
		` AND ` + c.Key + ` > $1 ORDER BY ` + c.Key + ` LIMIT ` + fmt.Sprint(sealBatch)
}

// sealBatch bounds the values SealExisting reads and seals in one
// transaction, so a large one-time pass never holds the (SQLite) writer
// for long.
const sealBatch = 500

// SealExisting encrypts every plaintext value of the given columns and
// returns how many it sealed. It is idempotent and safe to run from several
// replicas at once: each row is updated only while it still holds the
// plaintext that was read. Once everything is sealed it reads nothing
// (PlaintextCond's indexes), so every start may run it.
func SealExisting(ctx context.Context, db *store.DB, box *secretbox.Box, cols ...Column) (int, error) {
	if box == nil {
		return 0, ErrNoKey
	}
	total := 0
	for _, c := range cols {
		if err := c.check(); err != nil {
			return total, err
		}
		n, _, err := sealColumn(ctx, db, box, c)
		total += n
		if err != nil {
			return total, err
		}
	}
	return total, nil
}

// sealColumn seals c's plaintext in keyset batches, each written in one
// transaction, and returns how many values it sealed and how many rows it
// read.
func sealColumn(ctx context.Context, db *store.DB, box *secretbox.Box, c Column) (sealed, read int, err error) {
	// Identifiers come from the Column, checked by the caller; values are
	// bound as parameters.
	q := c.PlaintextQuery()
	after := ""
	for {
		batch, err := plainBatch(ctx, db, q, after)
		if err != nil {
			return sealed, read, fmt.Errorf("atrest: scan %s.%s: %w", c.Table, c.Column, err)
		}
		read += len(batch)
		if len(batch) == 0 {
			return sealed, read, nil
		}
		n := 0
		err = db.Tx(ctx, func(tx store.Querier) error {
			n = 0
			for _, r := range batch {
				res, err := tx.ExecContext(ctx, `UPDATE `+c.Table+` SET `+c.Column+` = $1 WHERE `+c.Key+` = $2 AND `+c.Column+` = $3`,
					box.Seal(r[1], c.AAD(r[0])), r[0], r[1])
				if err != nil {
					return fmt.Errorf("atrest: seal %s.%s %s: %w", c.Table, c.Column, r[0], err)
				}
				if k, _ := res.RowsAffected(); k > 0 {
					n++
				}
			}
			return nil
		})
		sealed += n
		if err != nil {
			return sealed, read, err
		}
		if len(batch) < sealBatch {
			return sealed, read, nil
		}
		after = batch[len(batch)-1][0]
	}
}

// plainBatch runs a PlaintextQuery after the key after.
func plainBatch(ctx context.Context, db *store.DB, q, after string) ([][2]string, error) {
	return store.Pairs(ctx, db.Read(), q, after)
}
