package password

import (
	"context"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/latchkey/latchkey/internal/apierr"
	"github.com/latchkey/latchkey/internal/ids"
	"github.com/latchkey/latchkey/internal/store"
)

// LockRule locks a key after Limit failed password checks within Window,
// for Lock. Counts live in the database, so every replica enforces them.
type LockRule struct {
	Name   string
	Limit  int
	Window time.Duration
	Lock   time.Duration
}

// Lockout rules: per email address (which covers the member in every
// organization and discovery), and per client address, which is generous
// because an office shares one address.
var (
	EmailLockout = LockRule{Name: "pw_email", Limit: 10, Window: time.Hour, Lock: time.Hour}
	IPLockout    = LockRule{Name: "pw_ip", Limit: 100, Window: time.Hour, Lock: time.Hour}
)

// lockKey is a rule applied to one subject; keys are hashed so the table
// holds neither email addresses nor client addresses.
type lockKey struct {
	rule LockRule
	key  string
}

func emailLock(projectID, email string) lockKey {
	return lockKey{EmailLockout, EmailLockout.Name + ":" + ids.Hash(projectID + "|" + email)[:40]}
}

func ipLock(projectID, ip string) lockKey {
	return lockKey{IPLockout, IPLockout.Name + ":" + ids.Hash(projectID + "|" + ip)[:40]}
}

// checkLocks returns user_lock_limit_reached while any key is locked.
func (s *Service) checkLocks(ctx context.Context, keys ...lockKey) error {
	now := store.Millis(s.d.Clock.Now())
	for _, k := range keys {
		var until int64
		err := s.d.DB.Read().QueryRowContext(ctx, `SELECT locked_until FROM password_lockouts WHERE lock_key = $1`, k.key).Scan(&until)
		if errors.Is(store.MapError(err), store.ErrNotFound) {
			continue
		}
		if err != nil {
			return fmt.Errorf("password: lockout: %w", err)
		}
		if until > now {
			retry := int(math.Ceil(float64(until-now) / 1000))
			return apierr.New(apierr.UserLockLimitReached).WithDetails(map[string]any{"retry_after_seconds": retry})
		}
	}
	return nil
}

// recordFailure counts a failed check against every key, starting a new
// window when the old one is over, and locks a key that reaches its limit.
func (s *Service) recordFailure(ctx context.Context, keys ...lockKey) error {
	now := s.d.Clock.Now()
	for _, k := range keys {
		var failures int
		err := s.d.DB.QueryRowContext(ctx, `INSERT INTO password_lockouts (lock_key, failures, window_start, locked_until)
			VALUES ($1, 1, $2, 0) ON CONFLICT (lock_key) DO UPDATE SET
			failures = CASE WHEN password_lockouts.window_start <= $3 THEN 1 ELSE password_lockouts.failures + 1 END,
			window_start = CASE WHEN password_lockouts.window_start <= $3 THEN excluded.window_start ELSE password_lockouts.window_start END
			RETURNING failures`, k.key, store.Millis(now), store.Millis(now.Add(-k.rule.Window))).Scan(&failures)
		if err != nil {
			return fmt.Errorf("password: record failure: %w", store.MapError(err))
		}
		if failures >= k.rule.Limit {
			if _, err := s.d.DB.ExecContext(ctx, `UPDATE password_lockouts SET locked_until = $1 WHERE lock_key = $2`,
				store.Millis(now.Add(k.rule.Lock)), k.key); err != nil {
				return fmt.Errorf("password: lock: %w", err)
			}
		}
	}
	return nil
}

// clearFailures forgets the failures of a key after a correct password
// (only the email's key: a correct password for one account must not
// reset the count of an address guessing at many).
func (s *Service) clearFailures(ctx context.Context, k lockKey) error {
	if _, err := s.d.DB.ExecContext(ctx, `DELETE FROM password_lockouts WHERE lock_key = $1 AND locked_until <= $2`,
		k.key, store.Millis(s.d.Clock.Now())); err != nil {
		return fmt.Errorf("password: clear failures: %w", err)
	}
	return nil
}

// Sweep deletes what can no longer matter: failure counts whose window and
// lock ended more than olderThan ago, and reset tokens that expired before
// then. The server runs it periodically, with the rate-limit sweep.
func (s *Service) Sweep(ctx context.Context, olderThan time.Duration) error {
	cutoff := store.Millis(s.d.Clock.Now().Add(-olderThan))
	longest := max(EmailLockout.Window, IPLockout.Window)
	if _, err := s.d.DB.ExecContext(ctx, `DELETE FROM password_lockouts WHERE window_start < $1 AND locked_until < $2`,
		cutoff-longest.Milliseconds(), cutoff); err != nil {
		return fmt.Errorf("password: sweep lockouts: %w", err)
	}
	if _, err := s.d.DB.ExecContext(ctx, `DELETE FROM password_resets WHERE expires_at < $1`, cutoff); err != nil {
		return fmt.Errorf("password: sweep reset tokens: %w", err)
	}
	return nil
}
