// Package ratelimit enforces fixed-window limits stored in the database, so
// every replica sees the same counts. Every send and every credential check
// goes through it.
package ratelimit

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/latchkey/latchkey/internal/apierr"
	"github.com/latchkey/latchkey/internal/clock"
	"github.com/latchkey/latchkey/internal/ids"
	"github.com/latchkey/latchkey/internal/store"
	"github.com/latchkey/latchkey/internal/sweeper"
)

// Rule is a named limit: at most Limit hits per Window for one key.
type Rule struct {
	Name   string
	Limit  int
	Window time.Duration

	// The fields below matter to Reserve and Guard only (credential
	// checks); Allow ignores them.

	// Lock keeps a key refused for this long after a failure brings its
	// count to Limit (a lockout); zero refuses only until the window ends.
	Lock time.Duration
	// Refuse is the error type of a refusal; too_many_requests if empty.
	Refuse apierr.Type
	// OnSuccess is what a correct credential does to the count.
	OnSuccess Outcome
	// SlowOnly rules never lock: past Limit each attempt waits its turn,
	// SlowStep more per hit past Limit (at most SlowMax), so a counter
	// that anyone can drive up (all guesses at one email address) slows
	// guessing without locking out the real user. The turns of a key form
	// one line (see reserveTurn): concurrent attempts wait one after
	// another, not side by side, so guessing from many client addresses
	// at once is no faster than from one. An attempt that would wait in
	// line longer than SlowQueue (default three times SlowMax) is refused
	// instead, counting nothing, and told when to retry.
	SlowOnly                     bool
	SlowStep, SlowMax, SlowQueue time.Duration
	// CleanRule, for a SlowOnly rule, names another rule of the same
	// attempt whose key counts one client's attempts here (for a
	// password, the pair of email and client address). An attempt whose
	// key under it counts nothing else in its window (no failure, nothing
	// still being checked) stays out of the line: it waits just its step,
	// at most SlowMax, takes no turn, and is never refused by SlowQueue.
	// Otherwise strangers who keep the line full would have the real user
	// refused at every try. Only clients that already failed here queue.
	// Empty: every attempt queues.
	CleanRule string

	// PerClientAddress says the rule's key is the end user's client
	// address. It does not apply to a request that a customer's own server
	// makes for its users (see OnBehalf), whose address is that server's.
	PerClientAddress bool
}

// onBehalfKey marks a request made by a customer's server for its users.
type onBehalfKey struct{}

// OnBehalf marks ctx as a request that a customer's server made with its
// project secret (the backend face), on behalf of the users it serves. Its
// client address is that server's, one address for every one of them: a
// per-address limit would cap the whole customer at what one person may
// do (fifty login emails in ten minutes) and let any stranger lock every
// user out with a hundred wrong passwords. So PerClientAddress rules are
// skipped for it; the rules per account (email, member, code, token)
// still hold, and the project secret's own failures stay counted per
// address, before the secret is known.
func OnBehalf(ctx context.Context) context.Context {
	return context.WithValue(ctx, onBehalfKey{}, true)
}

// applies reports whether rule counts for the request of ctx.
func applies(ctx context.Context, rule Rule) bool {
	return !rule.PerClientAddress || ctx.Value(onBehalfKey{}) == nil
}

// Limiter counts hits per (rule, key, window).
type Limiter struct {
	db    *store.DB
	clock clock.Clock
	sleep func(context.Context, time.Duration) error
}

// New returns a limiter on db.
func New(db *store.DB, c clock.Clock) *Limiter { return &Limiter{db: db, clock: c, sleep: sleepCtx} }

// SetSleep replaces how slow-downs wait (tests record them instead; a
// recording under which no time passes has every attempt arrive at the
// same instant, so a sequence of them waits in one line, see reserveTurn).
func (l *Limiter) SetSleep(fn func(context.Context, time.Duration) error) { l.sleep = fn }

func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Allow records a hit for key under rule and returns too_many_requests (or
// the rule's own error type) once the window's limit is exceeded. Keys are
// hashed so the table never holds email addresses or IPs in clear.
func (l *Limiter) Allow(ctx context.Context, rule Rule, key string) error {
	return l.AllowAs(ctx, rule, key, apierr.TooManyRequests)
}

// AllowAs is Allow with a specific error type for the refusal.
func (l *Limiter) AllowAs(ctx context.Context, rule Rule, key string, t apierr.Type) error {
	return l.allow(ctx, l.db, rule, key, t)
}

// AllowIn is Allow inside the caller's transaction q. Code that already
// holds a transaction must count through it: on SQLite the transaction
// owns the one writer connection, so a separate write would never run.
func (l *Limiter) AllowIn(ctx context.Context, q store.Querier, rule Rule, key string) error {
	return l.allow(ctx, q, rule, key, apierr.TooManyRequests)
}

func (l *Limiter) allow(ctx context.Context, q store.Querier, rule Rule, key string, t apierr.Type) error {
	if !applies(ctx, rule) {
		return nil
	}
	now := l.clock.Now()
	start := now.Truncate(rule.Window)
	bucket := bucketFor(rule, key)
	var hits int
	err := q.QueryRowContext(ctx, `
		INSERT INTO rate_limits (bucket, window_start, hits) VALUES ($1, $2, 1)
		ON CONFLICT (bucket, window_start) DO UPDATE SET hits = rate_limits.hits + 1
		RETURNING hits`, bucket, store.Millis(start)).Scan(&hits)
	if err != nil {
		return fmt.Errorf("ratelimit: %s: %w", rule.Name, store.MapError(err))
	}
	if hits > rule.Limit {
		retry := int(math.Ceil(start.Add(rule.Window).Sub(now).Seconds()))
		return apierr.New(t).WithDetails(map[string]any{"retry_after_seconds": retry})
	}
	return nil
}

// Sweeps offers the sweeper (app.Sweeper) the windows and the attempt
// counters that started more than olderThan ago (a counter also once its
// lock has ended), in batches so a backlog never holds the SQLite writer
// for long. A window's key is (bucket, window_start).
func (l *Limiter) Sweeps(olderThan time.Duration) []sweeper.Sweepable {
	return []sweeper.Sweepable{
		sweeper.Expired{DB: l.db, Table: "rate_limits", Key: "bucket, window_start", Column: "window_start", Keep: olderThan},
		sweeper.Expired{DB: l.db, Table: "attempt_counters", Key: "bucket", Column: "window_start", Keep: olderThan,
			Where: "locked_until < $1"},
	}
}

// Sweep runs Sweeps once.
func (l *Limiter) Sweep(ctx context.Context, olderThan time.Duration) error {
	if _, err := sweeper.Sweep(ctx, l.clock.Now(), l.Sweeps(olderThan)...); err != nil {
		return fmt.Errorf("ratelimit: %w", err)
	}
	return nil
}

func bucketFor(rule Rule, key string) string { return rule.Name + ":" + ids.Hash(key)[:40] }
