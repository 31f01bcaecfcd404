package emailotp

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/latchkey/latchkey/internal/clock"
	"github.com/latchkey/latchkey/internal/ids"
	"github.com/latchkey/latchkey/internal/secretbox"
	"github.com/latchkey/latchkey/internal/store"
)

// Codes stores one-time passcodes in a table keyed by one column (a
// member id for organization logins, an email address for discovery), so
// every email code shares one implementation of hashing, expiry,
// supersession and lockout.
//
// The table must have: <IDColumn>, project_id, <KeyColumn>, code_salt,
// code_hash, failed_attempts, created_at, expires_at, used_at.
//
// A code has 10^6 values, so a salted SHA-256 of it in the same row is
// undone by anyone who can read the table, in a million hashes: someone
// with read access to the database could ask for a code to any address
// and log in with it. The stored hash is therefore a tag under the
// encryption key (secretbox.Box.Tag), which is not in the database. Its
// salt carries keyedSalt, so a row stored as a plain salted hash before
// this (live for at most an expiry across an upgrade) still checks.
type Codes struct {
	Table, IDColumn, KeyColumn string
	Clock                      clock.Clock
	Box                        *secretbox.Box // tags the codes; required
}

// keyedSalt starts the salt of a code stored as a keyed tag.
const keyedSalt = "t1."

// hash is what code_hash holds for code under salt. ok is false when the
// code cannot be hashed: a keyed salt without a box.
func (c Codes) hash(salt, code string) (h string, ok bool) {
	if !strings.HasPrefix(salt, keyedSalt) {
		return ids.HashCode(salt, code), true
	}
	if c.Box == nil {
		return "", false
	}
	return c.Box.Tag("codes:"+c.Table, salt+":"+code), true
}

// Issue retires the key's live codes and stores a fresh one. extra names
// further columns to fill (e.g. organization_id). It returns the code.
func (c Codes) Issue(ctx context.Context, q store.Querier, env ids.Env, projectID, key string, expiry time.Duration,
	extra map[string]any) (string, error) {
	now := c.Clock.Now()
	if _, err := q.ExecContext(ctx, `UPDATE `+c.Table+` SET used_at = $1 WHERE `+c.KeyColumn+` = $2 AND project_id = $3 AND used_at IS NULL`,
		store.Millis(now), key, projectID); err != nil {
		return "", fmt.Errorf("emailotp: retire old codes: %w", err)
	}
	if c.Box == nil {
		return "", fmt.Errorf("emailotp: %s: no encryption key to tag codes with", c.Table)
	}
	code, salt := ids.Digits(CodeLength), keyedSalt+ids.Token()
	hash, _ := c.hash(salt, code)
	cols := []string{c.IDColumn, "project_id", c.KeyColumn, "code_salt", "code_hash", "created_at", "expires_at"}
	vals := []any{ids.New(strings.ReplaceAll(c.Table, "_", "-"), env), projectID, key, salt, hash,
		store.Millis(now), store.Millis(now.Add(expiry))}
	// In a fixed order, so the statement's text is the same every time
	// (SQLite keeps it prepared, see store).
	for _, col := range slices.Sorted(maps.Keys(extra)) {
		cols, vals = append(cols, col), append(vals, extra[col])
	}
	marks := make([]string, len(cols))
	for i := range marks {
		marks[i] = fmt.Sprintf("$%d", i+1)
	}
	_, err := q.ExecContext(ctx, `INSERT INTO `+c.Table+` (`+strings.Join(cols, ", ")+`) VALUES (`+strings.Join(marks, ", ")+`)`, vals...)
	if err != nil {
		return "", fmt.Errorf("emailotp: store code: %w", err)
	}
	return code, nil
}

// Retire spends every live code of key (used when delivery failed).
func (c Codes) Retire(ctx context.Context, q store.Querier, projectID, key string) {
	_, _ = q.ExecContext(ctx, `UPDATE `+c.Table+` SET used_at = $1 WHERE `+c.KeyColumn+` = $2 AND project_id = $3 AND used_at IS NULL`,
		store.Millis(c.Clock.Now()), key, projectID)
}

// Check compares code with the key's newest live code. The attempt is
// counted on the code's row first (failed_attempts counts every check, a
// matching one spends the code anyway), and only an attempt that got one
// of the MaxAttempts is compared: concurrent guesses wait on the row and
// cannot all pass a stale count. A match spends the code (single use under
// concurrency); the MaxAttempts-th miss retires it. matched is false for a
// miss and for "no live code"; err is only for database failures. The
// caller must commit q even on a miss, so the attempt is counted.
func (c Codes) Check(ctx context.Context, q store.Querier, projectID, key, code string) (matched bool, err error) {
	return c.check(ctx, q, projectID, key, nil, code)
}

// CheckSentTo is Check for a table that records the address each code was
// sent to (email_address): only a code sent to sentTo is live. A code
// keyed by a member proves the address it went to, which is not the
// member's once their address changes (or unknown, left empty, for a code
// stored before the address was recorded); such a code is no live code, so
// it answers as an expired one does.
func (c Codes) CheckSentTo(ctx context.Context, q store.Querier, projectID, key, sentTo, code string) (matched bool, err error) {
	return c.check(ctx, q, projectID, key, &sentTo, code)
}

func (c Codes) check(ctx context.Context, q store.Querier, projectID, key string, sentTo *string, code string) (matched bool, err error) {
	now := store.Millis(c.Clock.Now())
	var id string
	sent, args := "", []any{key, projectID, now}
	if sentTo != nil {
		sent, args = ` AND email_address = $4`, append(args, *sentTo)
	}
	err = q.QueryRowContext(ctx, `SELECT `+c.IDColumn+` FROM `+c.Table+`
		WHERE `+c.KeyColumn+` = $1 AND project_id = $2 AND used_at IS NULL AND expires_at > $3`+sent+` ORDER BY created_at DESC LIMIT 1`,
		args...).Scan(&id)
	if err != nil {
		if err := store.MapError(err); err != nil && !isNotFound(err) {
			return false, fmt.Errorf("emailotp: find code: %w", err)
		}
		return false, nil
	}
	matched, err = c.attempt(ctx, q, id, code, now)
	if err != nil || !matched {
		return false, err
	}
	return c.spend(ctx, q, id, now)
}

// attempt counts a guess on the live code id, then compares code with it
// in constant time; the MaxAttempts-th miss retires the code. A code spent,
// out of attempts or expired (at now) meanwhile is a miss: the caller may
// have found it live before waiting for rows another transaction held. A
// match is not spent yet: the caller spends it (spend).
func (c Codes) attempt(ctx context.Context, q store.Querier, id, code string, now int64) (matched bool, err error) {
	var salt, hash string
	var attempts int
	err = q.QueryRowContext(ctx, `UPDATE `+c.Table+` SET failed_attempts = failed_attempts + 1
		WHERE `+c.IDColumn+` = $1 AND used_at IS NULL AND failed_attempts < $2 AND expires_at > $3
		RETURNING code_salt, code_hash, failed_attempts`, id, MaxAttempts, now).Scan(&salt, &hash, &attempts)
	if err != nil {
		if err := store.MapError(err); err != nil && !isNotFound(err) {
			return false, fmt.Errorf("emailotp: count attempt: %w", err)
		}
		return false, nil // spent or out of attempts meanwhile
	}
	if want, ok := c.hash(salt, code); ok && ids.Equal(want, hash) {
		return true, nil
	}
	if attempts >= MaxAttempts {
		if _, err := c.spend(ctx, q, id, now); err != nil {
			return false, err
		}
	}
	return false, nil
}

// spend uses up the code id; false when a concurrent check spent it first
// or it expired (at now). An expired code stays as it is: it is no live
// code either way.
func (c Codes) spend(ctx context.Context, q store.Querier, id string, now int64) (bool, error) {
	res, err := q.ExecContext(ctx, `UPDATE `+c.Table+` SET used_at = $1 WHERE `+c.IDColumn+` = $2 AND used_at IS NULL
		AND expires_at > $1`, now, id)
	if err != nil {
		return false, fmt.Errorf("emailotp: spend code: %w", err)
	}
	n, _ := res.RowsAffected()
	return n == 1, nil
}

func isNotFound(err error) bool { return errors.Is(err, store.ErrNotFound) }
