package atrest

import (
	"context"
	"errors"
	"fmt"

	"github.com/latchkey/latchkey/internal/secretbox"
	"github.com/latchkey/latchkey/internal/store"
)

// ErrWrongKey is CheckKey's refusal: the values already sealed in the
// database were sealed with another key.
var ErrWrongKey = errors.New("atrest: the encryption key does not open the secrets already sealed in the database")

// keyCheck is the canary row (migration 0097): a fixed text sealed with the
// database's key, bound to its row like every other sealed value.
var keyCheck = Column{Table: "encryption_key_check", Key: "id", Column: "sealed"}

const (
	keyCheckID   = "key"
	keyCheckText = "latchkey encryption key check v1"
)

// CheckKey proves that box holds the key the database's secrets are sealed
// with, and must run before anything is sealed with it: a process started
// with a mistyped key would otherwise seal new secrets under that key, and
// the database would end up under two (with one of them, whatever the
// other sealed no longer opens).
//
// The proof is the canary row: one indexed read at every start. The first
// start with a key writes it, after checking that the key opens one
// already sealed value of each of cols, if any (a database sealed before
// the canary existed). Plaintext values are no obstacle: SealExisting
// seals them under the checked key afterwards. The write is
// insert-if-absent followed by a read-back, so of several replicas
// starting at once with different keys only the one whose canary was
// stored proceeds.
func CheckKey(ctx context.Context, db *store.DB, box *secretbox.Box, cols ...Column) error {
	if box == nil {
		return ErrNoKey
	}
	stored, err := readCanary(ctx, db.Read())
	if errors.Is(err, store.ErrNotFound) {
		if err := checkSealed(ctx, db, box, cols); err != nil {
			return err
		}
		sealed, serr := keyCheck.SealStored(box, keyCheckID, keyCheckText)
		if serr != nil {
			return serr
		}
		if _, err := db.ExecContext(ctx, `INSERT INTO `+keyCheck.Table+` (id, sealed) VALUES ($1, $2)
			ON CONFLICT (id) DO NOTHING`, keyCheckID, sealed); err != nil {
			return fmt.Errorf("atrest: write key check: %w", err)
		}
		// Read back on the writer: a replica that lost the race checks
		// the winner's canary, not its own.
		stored, err = readCanary(ctx, db)
	}
	if err != nil {
		return err
	}
	if pt, err := keyCheck.OpenStored(box, keyCheckID, stored); err != nil || pt != keyCheckText {
		return ErrWrongKey
	}
	return nil
}

func readCanary(ctx context.Context, q store.Querier) (string, error) {
	var stored string
	err := q.QueryRowContext(ctx, `SELECT sealed FROM `+keyCheck.Table+` WHERE id = $1`, keyCheckID).Scan(&stored)
	if err != nil {
		return "", fmt.Errorf("atrest: read key check: %w", store.MapError(err))
	}
	return stored, nil
}

// checkSealed samples one sealed value of each column, if it holds any,
// and accepts the key when one of them opens: an AEAD value does not open
// under another key, so one is proof enough. A value that does not open
// is no proof of the opposite on its own, since a column may still hold
// values sealed the way an earlier version sealed them, for another
// associated data (the OAuth and SSO modules' MigrateSecrets reseal those
// after this check, with the key it accepted). Only when there are sealed
// values and none of them opens is the key refused.
func checkSealed(ctx context.Context, db *store.DB, box *secretbox.Box, cols []Column) error {
	sampled := 0
	for _, c := range cols {
		if err := c.check(); err != nil {
			return err
		}
		var id, stored string
		err := db.Read().QueryRowContext(ctx, `SELECT `+c.Key+`, `+c.Column+` FROM `+c.Table+
			` WHERE `+c.Column+` LIKE $1 LIMIT 1`, secretbox.Prefix+"%").Scan(&id, &stored)
		if errors.Is(store.MapError(err), store.ErrNotFound) {
			continue
		}
		if err != nil {
			return fmt.Errorf("atrest: check key on %s.%s: %w", c.Table, c.Column, err)
		}
		if _, err := c.OpenStored(box, id, stored); err == nil {
			return nil
		}
		sampled++
	}
	if sampled > 0 {
		return ErrWrongKey
	}
	return nil
}

// HasSealed reports whether db holds anything sealed with an encryption
// key: the key check value, or a sealed value of one of cols. `latchkey
// dev` asks before it makes up a key for a database whose key file is
// missing: on such a database a new key opens nothing, and it refuses
// instead.
func HasSealed(ctx context.Context, db *store.DB, cols ...Column) (bool, error) {
	_, err := readCanary(ctx, db.Read())
	if err == nil {
		return true, nil
	}
	if !errors.Is(err, store.ErrNotFound) {
		return false, err
	}
	for _, c := range cols {
		if err := c.check(); err != nil {
			return false, err
		}
		var one int
		err := db.Read().QueryRowContext(ctx, `SELECT 1 FROM `+c.Table+` WHERE `+c.Column+` LIKE $1 LIMIT 1`,
			secretbox.Prefix+"%").Scan(&one)
		switch err = store.MapError(err); {
		case errors.Is(err, store.ErrNotFound):
			continue
		case err != nil:
			return false, fmt.Errorf("atrest: look for sealed values in %s.%s: %w", c.Table, c.Column, err)
		}
		return true, nil
	}
	return false, nil
}
