package atrest

import (
	"context"
	"errors"
	"fmt"

	"github.com/latchkey/latchkey/internal/secretbox"
	"github.com/latchkey/latchkey/internal/store"
)

// Rotating the encryption key (`latchkey rekey`) reseals every stored
// value under a new key in one transaction of the caller's: the helpers
// below read through that transaction, open each value with the current
// key and write it back sealed under the new one, for the same associated
// data. Nothing is written when one value fails, since the caller's
// transaction is rolled back.

// ErrCannotOpen marks a stored value the current key does not open: a
// rotation stops there rather than leave the value behind under the old
// key (or lose it).
var ErrCannotOpen = errors.New("does not open with the current encryption key")

// ErrChanged marks a row written by someone else between the rotation's
// read and its write: a server still running.
var ErrChanged = errors.New("changed during the key rotation (is a server still running?)")

// Reseal returns stored, a value sealed under from for aad, sealed under
// to for the same aad. place ("table.column") and id name the value in
// the error, never its content.
func Reseal(from, to *secretbox.Box, place, id, stored, aad string) (string, error) {
	if from == nil || to == nil {
		return "", ErrNoKey
	}
	plain, err := from.Open(stored, aad)
	if err != nil {
		return "", fmt.Errorf("atrest: %s row %s %w: %v", place, id, ErrCannotOpen, err)
	}
	return to.Seal(plain, aad), nil
}

// Swap writes next over the value read from c's row id, in the rotation's
// transaction q; a row that no longer holds read is ErrChanged.
func Swap(ctx context.Context, q store.Querier, c Column, id, read, next string) error {
	if err := c.check(); err != nil {
		return err
	}
	res, err := q.ExecContext(ctx, `UPDATE `+c.Table+` SET `+c.Column+` = $1 WHERE `+c.Key+` = $2 AND `+c.Column+` = $3`,
		next, id, read)
	if err != nil {
		return fmt.Errorf("atrest: reseal %s.%s row %s: %w", c.Table, c.Column, id, err)
	}
	if n, err := res.RowsAffected(); err != nil || n != 1 {
		return fmt.Errorf("atrest: %s.%s row %s %w", c.Table, c.Column, id, ErrChanged)
	}
	return nil
}

// Rows reads every row of c whose value is not empty, through q.
func (c Column) Rows(ctx context.Context, q store.Querier) ([][2]string, error) {
	if err := c.check(); err != nil {
		return nil, err
	}
	out, err := store.Pairs(ctx, q, `SELECT `+c.Key+`, `+c.Column+` FROM `+c.Table+` WHERE `+c.Column+` <> ''`)
	if err != nil {
		return nil, fmt.Errorf("atrest: read %s.%s: %w", c.Table, c.Column, err)
	}
	return out, nil
}

// Rekey reseals every value of c under to, through the rotation's
// transaction q, and returns how many it wrote. A plaintext value (left
// from before a key was configured) is sealed under to, as SealExisting
// would have sealed it.
func (c Column) Rekey(ctx context.Context, q store.Querier, from, to *secretbox.Box) (int, error) {
	rows, err := c.Rows(ctx, q)
	if err != nil {
		return 0, err
	}
	for _, r := range rows {
		id, stored := r[0], r[1]
		var next string
		if secretbox.IsSealed(stored) {
			if next, err = Reseal(from, to, c.Table+"."+c.Column, id, stored, c.AAD(id)); err != nil {
				return 0, err
			}
		} else if next, err = c.SealStored(to, id, stored); err != nil {
			return 0, err
		}
		if err := Swap(ctx, q, c, id, stored, next); err != nil {
			return 0, err
		}
	}
	return len(rows), nil
}

// RekeyCheck rewrites the key-check canary (CheckKey) under to, through
// the rotation's transaction q, so that afterwards the new key starts and
// the old one is refused. A database without the canary yet gets one.
func RekeyCheck(ctx context.Context, q store.Querier, from, to *secretbox.Box) error {
	stored, err := readCanary(ctx, q)
	if errors.Is(err, store.ErrNotFound) {
		sealed, err := keyCheck.SealStored(to, keyCheckID, keyCheckText)
		if err != nil {
			return err
		}
		if _, err := q.ExecContext(ctx, `INSERT INTO `+keyCheck.Table+` (id, sealed) VALUES ($1, $2)`, keyCheckID, sealed); err != nil {
			return fmt.Errorf("atrest: write key check: %w", err)
		}
		return nil
	}
	if err != nil {
		return err
	}
	next, err := Reseal(from, to, keyCheck.Table+"."+keyCheck.Column, keyCheckID, stored, keyCheck.AAD(keyCheckID))
	if err != nil {
		return err
	}
	return Swap(ctx, q, keyCheck, keyCheckID, stored, next)
}
