package ratelimit

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sort"
	"time"

	"github.com/latchkey/latchkey/internal/apierr"
	"github.com/latchkey/latchkey/internal/store"
)

// This file is the one failure-counting mechanism for credential checks
// (passwords, TOTP and recovery codes, email and SMS codes, links, tokens,
// and whatever a module adds). It counts first: an attempt is reserved in
// the database, atomically, before the secret is looked at, so fifty
// guesses sent at once cannot all pass a "not yet over the limit" read.
// The check's result then settles the reservation:
//
//   - a wrong credential keeps it (and may start a lock),
//   - a correct one keeps, gives back or clears it, as the rule says,
//   - anything else (bad input, a server error) gives it back.
//
// Limits of requests that are not guesses (sends, lookups) use Allow.

// Outcome is what a successful check does to a rule's count.
type Outcome int

const (
	// Keep counts every attempt, right or wrong: a budget of checks per
	// window (e.g. per code, per token holder).
	Keep Outcome = iota
	// Release gives a successful attempt back, so only failures count:
	// per-address and per-member counters.
	Release
	// Reset clears the key's failures (not a running lock): only for keys
	// whose success proves the secret of that very key, such as
	// (email, address) for a password.
	Reset
)

// Key is one rule applied to one key, for Reserve. Subject, when set,
// names what a lock is about so IsLocked (and a member's is_locked, which
// joins on it) can find it: EmailSubject for an address. It is stored as
// given, so it must only be an identifier the database already holds.
type Key struct {
	Rule    Rule
	Key     string
	Subject string
}

// For returns the key of rule for key.
func For(rule Rule, key string) Key { return Key{Rule: rule, Key: key} }

// About returns k with a subject for IsLocked.
func (k Key) About(subject string) Key { k.Subject = subject; return k }

func (k Key) bucket() string { return bucketFor(k.Rule, k.Key) }

// EmailSubject is the subject of locks about an email address in a
// project; members.project_id || '|' || members.email_address in SQL.
func EmailSubject(projectID, email string) string { return projectID + "|" + email }

// reserved is one counted attempt: the window it was counted in lets a
// release after the window rolled over leave the new window alone.
type reserved struct {
	key         Key
	windowStart int64
	hits        int
}

// Attempt is a set of reserved attempts, settled exactly once by
// Succeeded, Failed or Abandon (or by Settle/Guard).
type Attempt struct {
	l     *Limiter
	keys  []reserved
	delay time.Duration
	done  bool
}

// Delay is how long the check should be slowed down by rules that only
// slow (Rule.SlowOnly); Guard waits it before checking.
func (a *Attempt) Delay() time.Duration { return a.delay }

// Reserve counts one attempt against every key, in one transaction, and
// refuses (counting nothing) when any key is locked or over its limit.
// It must not run inside the caller's transaction: on SQLite that
// transaction holds the one writer connection.
func (l *Limiter) Reserve(ctx context.Context, keys ...Key) (*Attempt, error) {
	sorted := sortKeys(ctx, keys)
	if len(sorted) == 0 {
		return &Attempt{l: l}, nil // nothing to count (see OnBehalf)
	}
	now := l.clock.Now()
	var a *Attempt
	var refusal error
	err := l.db.Tx(ctx, func(q store.Querier) error {
		var err error
		a, refusal, err = l.reserveIn(ctx, q, sorted, now)
		if err != nil {
			return err
		}
		if refusal != nil {
			return errRefused // roll back: a refused attempt counts nothing
		}
		return nil
	})
	if refusal != nil {
		return nil, refusal
	}
	if err != nil {
		return nil, fmt.Errorf("ratelimit: reserve: %w", err)
	}
	return a, nil
}

// sortKeys returns the keys that apply to the request of ctx, in one
// order for every caller, so two transactions holding rows of the same
// keys never wait on each other in a cycle on PostgreSQL.
func sortKeys(ctx context.Context, keys []Key) []Key {
	sorted := make([]Key, 0, len(keys))
	for _, k := range keys {
		if applies(ctx, k.Rule) {
			sorted = append(sorted, k)
		}
	}
	sort.Slice(sorted, func(i, j int) bool { return sorted[i].bucket() < sorted[j].bucket() })
	return sorted
}

// reserveIn counts one attempt against every key inside q and returns the
// attempt, or the refusal when a key is locked or over its limit (the
// caller then rolls q back). The SlowOnly rules' turns come after every
// count: whether an attempt queues depends on another key's count (see
// Rule.CleanRule), and a refused attempt needs no turn.
func (l *Limiter) reserveIn(ctx context.Context, q store.Querier, sorted []Key, now time.Time) (a *Attempt, refusal, err error) {
	a = &Attempt{l: l}
	for _, k := range sorted {
		r, until, err := reserveOne(ctx, q, k, now)
		if err != nil {
			return nil, nil, err
		}
		if over := until > store.Millis(now) || r.hits > k.Rule.Limit; !k.Rule.SlowOnly && over && refusal == nil {
			end := max(until, r.windowStart+k.Rule.Window.Milliseconds())
			refusal = refuse(k.Rule, end-store.Millis(now))
		}
		a.keys = append(a.keys, r)
	}
	if refusal != nil {
		return a, refusal, nil
	}
	for _, r := range a.keys {
		k := r.key
		if !k.Rule.SlowOnly {
			continue
		}
		if a.clean(k.Rule) {
			// Out of the line: just this count's step, as if alone, and
			// never refused, whoever else is waiting.
			a.delay = max(a.delay, k.Rule.slowdown(r.hits))
			continue
		}
		wait, err := reserveTurn(ctx, q, k, r.hits, now)
		if err != nil {
			return nil, nil, err
		}
		if most := k.Rule.slowQueue(); wait > most && refusal == nil {
			refusal = refuse(k.Rule, (wait - most).Milliseconds())
		}
		a.delay = max(a.delay, wait)
	}
	return a, refusal, nil
}

// clean reports whether the attempt stays out of rule's line: rule names
// a CleanRule, the attempt has a key under it, and that key counts no
// attempt but this one in its window (no failure, and no other attempt
// of the same client still being checked, which may yet fail).
func (a *Attempt) clean(rule Rule) bool {
	if rule.CleanRule == "" {
		return false
	}
	found := false
	for _, r := range a.keys {
		if r.key.Rule.Name != rule.CleanRule {
			continue
		}
		if r.hits > 1 {
			return false
		}
		found = true
	}
	return found
}

var errRefused = errors.New("ratelimit: refused")

// reserveOne adds one hit to k's counter, starting a new window when the
// last one is over and no lock runs, and returns the count and lock.
func reserveOne(ctx context.Context, q store.Querier, k Key, now time.Time) (reserved, int64, error) {
	r := reserved{key: k}
	var until int64
	nowMs := store.Millis(now)
	// A new window starts when the old one is over and no lock runs, or
	// when a lock has just run out (a fresh start after serving it).
	const fresh = `attempt_counters.locked_until <= $3 AND
		(attempt_counters.window_start <= $4 OR attempt_counters.locked_until > 0)`
	err := q.QueryRowContext(ctx, `
		INSERT INTO attempt_counters (bucket, subject, window_start, hits, locked_until) VALUES ($1, $2, $3, 1, 0)
		ON CONFLICT (bucket) DO UPDATE SET
			hits = CASE WHEN `+fresh+` THEN 1 ELSE attempt_counters.hits + 1 END,
			window_start = CASE WHEN `+fresh+` THEN $3 ELSE attempt_counters.window_start END,
			locked_until = CASE WHEN `+fresh+` THEN 0 ELSE attempt_counters.locked_until END,
			subject = excluded.subject
		RETURNING hits, window_start, locked_until`,
		k.bucket(), k.Subject, nowMs, nowMs-k.Rule.Window.Milliseconds()).Scan(&r.hits, &r.windowStart, &until)
	if err != nil {
		return r, 0, fmt.Errorf("%s: %w", k.Rule.Name, store.MapError(err))
	}
	return r, until, nil
}

// reserveTurn gives an attempt past a SlowOnly rule's limit the next turn
// in its key's line, inside the reservation's transaction, and returns how
// long the attempt waits: until its turn ends. A turn starts when the last
// one handed out ends (or now, when that is past) and lasts the rule's
// step at this count, so concurrent attempts wait one step after another
// (N of them take N steps in all), and a lone attempt waits just its
// step, as before the line. The counter's row is already this
// transaction's (reserveOne wrote it), so turns are handed out one at a
// time on PostgreSQL as on SQLite. A refused reservation rolls its turn
// back with its hits; an attempt that leaves while it waits keeps its turn
// and its hit on the line's key (see LeftLine), so the line is no cheaper
// to fill than guessing is. A clean attempt (Rule.CleanRule) takes no turn.
func reserveTurn(ctx context.Context, q store.Querier, k Key, hits int, now time.Time) (time.Duration, error) {
	step := k.Rule.slowdown(hits)
	if step <= 0 {
		return 0, nil
	}
	nowMs := store.Millis(now)
	var next int64
	err := q.QueryRowContext(ctx, `UPDATE attempt_counters
		SET next_at = CASE WHEN next_at > $2 THEN next_at ELSE $2 END + $3
		WHERE bucket = $1 RETURNING next_at`, k.bucket(), nowMs, step.Milliseconds()).Scan(&next)
	if err != nil {
		return 0, fmt.Errorf("%s: turn: %w", k.Rule.Name, store.MapError(err))
	}
	return time.Duration(next-nowMs) * time.Millisecond, nil
}

// refuse is the rule's refusal, with the seconds until it may be retried.
func refuse(rule Rule, waitMs int64) error {
	t := rule.Refuse
	if t == "" {
		t = apierr.TooManyRequests
	}
	retry := int(math.Ceil(float64(max(waitMs, 1000)) / 1000))
	return apierr.New(t).WithDetails(map[string]any{"retry_after_seconds": retry})
}

// Succeeded settles a correct credential: each rule's Outcome applies.
func (a *Attempt) Succeeded(ctx context.Context) error {
	return a.settle(ctx, func(r reserved) Outcome { return r.key.Rule.OnSuccess })
}

// Abandon settles an attempt that checked nothing (bad input, a missing
// record that is not a guess, a server error): every hit is given back.
func (a *Attempt) Abandon(ctx context.Context) error {
	return a.settle(ctx, func(reserved) Outcome { return Release })
}

// Failed settles a wrong credential: the hits stay, and a rule with a Lock
// whose count reached its limit locks the key for Lock from now.
func (a *Attempt) Failed(ctx context.Context) error {
	if a.done {
		return nil
	}
	a.done = true
	if !a.any(func(r reserved) bool { return r.key.Rule.Lock > 0 && !r.key.Rule.SlowOnly }) {
		return nil
	}
	// The request may be gone (a client that hung up after its guess); the
	// lock must still be written.
	bg := context.WithoutCancel(ctx)
	return a.l.db.Tx(bg, func(q store.Querier) error { return a.failIn(bg, q) })
}

// LeftLine settles an attempt whose client left while it waited out its
// slow-down, before anything was checked. Its turn in a SlowOnly rule's
// line stays taken, so the hit on that rule's key stays too (a failure
// there; such rules never lock): holding turns, and keeping everyone
// else waiting or refused, must cost a guesser as much as guessing. Every
// other key's hit is given back: nothing was guessed, and a hang-up must
// not count towards a lock (the real user's own pair of email and client
// address, on a flaky connection).
func (a *Attempt) LeftLine(ctx context.Context) error {
	return a.settle(ctx, func(r reserved) Outcome {
		if r.key.Rule.SlowOnly {
			return Keep
		}
		return Release
	})
}

// any reports whether settling has a write for at least one key, so an
// attempt with nothing to write opens no transaction.
func (a *Attempt) any(writes func(reserved) bool) bool {
	for _, r := range a.keys {
		if writes(r) {
			return true
		}
	}
	return false
}

// failIn writes Failed's locks through q.
func (a *Attempt) failIn(ctx context.Context, q store.Querier) error {
	now := a.l.clock.Now()
	for _, r := range a.keys {
		if r.key.Rule.Lock <= 0 || r.key.Rule.SlowOnly {
			continue
		}
		// locked_at is when the lock began: a failure counted before the
		// lock and settled after it (a concurrent guess) extends the lock
		// but does not restart it.
		if _, err := q.ExecContext(ctx, `UPDATE attempt_counters
			SET locked_at = CASE WHEN locked_until > $4 THEN locked_at ELSE $4 END, locked_until = $1
			WHERE bucket = $2 AND hits >= $3 AND locked_until < $1`,
			store.Millis(now.Add(r.key.Rule.Lock)), r.key.bucket(), r.key.Rule.Limit, store.Millis(now)); err != nil {
			return fmt.Errorf("ratelimit: lock %s: %w", r.key.Rule.Name, err)
		}
	}
	return nil
}

func (a *Attempt) settle(ctx context.Context, outcome func(reserved) Outcome) error {
	if a.done {
		return nil
	}
	a.done = true
	if !a.any(func(r reserved) bool { o := outcome(r); return o == Release || o == Reset }) {
		return nil
	}
	// One transaction for every key: on SQLite each statement alone would
	// be a commit of its own on the one writer. The request may be gone by
	// now (a client that hung up after its guess), and the settling must
	// still be written, hence WithoutCancel.
	bg := context.WithoutCancel(ctx)
	return a.l.db.Tx(bg, func(q store.Querier) error { return a.settleIn(bg, q, outcome) })
}

// settleIn writes each key's outcome through q.
func (a *Attempt) settleIn(ctx context.Context, q store.Querier, outcome func(reserved) Outcome) error {
	now := store.Millis(a.l.clock.Now())
	for _, r := range a.keys {
		var err error
		switch outcome(r) {
		case Release:
			_, err = q.ExecContext(ctx, `UPDATE attempt_counters SET hits = hits - 1
				WHERE bucket = $1 AND window_start = $2 AND hits > 0`, r.key.bucket(), r.windowStart)
		case Reset:
			_, err = q.ExecContext(ctx, `DELETE FROM attempt_counters WHERE bucket = $1 AND locked_until <= $2`,
				r.key.bucket(), now)
		}
		if err != nil {
			return fmt.Errorf("ratelimit: settle %s: %w", r.key.Rule.Name, err)
		}
	}
	return nil
}

// Settle settles by the check's result: nil is a success, an error that
// isFailure recognises (a wrong credential) a failure, anything else is
// abandoned. It returns checkErr, joined with a settling error if any.
func (a *Attempt) Settle(ctx context.Context, checkErr error, isFailure func(error) bool) error {
	var serr error
	switch {
	case checkErr == nil:
		serr = a.Succeeded(ctx)
	case isFailure(checkErr):
		serr = a.Failed(ctx)
	default:
		serr = a.Abandon(ctx)
	}
	if serr == nil {
		return checkErr
	}
	if checkErr == nil {
		return serr
	}
	return errors.Join(checkErr, serr)
}

// Guard reserves an attempt on every key, waits out any slow-down, runs
// check, and settles by its result (see Settle). A refusal is returned
// without running check.
func (l *Limiter) Guard(ctx context.Context, check func() error, isFailure func(error) bool, keys ...Key) error {
	// GuardThen with nothing to follow a success settles it on its own.
	return l.GuardThen(ctx, check, isFailure, func(SettleIn) error { return nil }, keys...)
}

// GuardUnguessable is Guard for secrets too long to guess (session
// tokens, project secrets): check runs first and a correct secret always
// passes, so failures from an address (a whole office behind one NAT with
// expired cookies, or one misconfigured service) never make valid
// secrets fail there. Only a failure is counted; past the limit it is
// answered with the refusal instead, which slows a scanner down without
// costing anyone else anything.
func (l *Limiter) GuardUnguessable(ctx context.Context, check func() error, isFailure func(error) bool, keys ...Key) error {
	err := check()
	if err == nil || !isFailure(err) {
		return err
	}
	a, rerr := l.Reserve(ctx, keys...)
	if rerr != nil {
		return rerr
	}
	return errors.Join(err, a.Failed(ctx))
}

// FailureOf is an isFailure for Guard: errors of the given public types
// are wrong credentials.
func FailureOf(types ...apierr.Type) func(error) bool {
	return func(err error) bool {
		for _, t := range types {
			if apierr.Is(err, t) {
				return true
			}
		}
		return false
	}
}

// LinkFailure recognises a wrong link or token (unknown, spent, expired,
// or without the browser's PKCE verifier), for Guard and Settle.
var LinkFailure = FailureOf(apierr.UnableToAuthMagicLink, apierr.PKCEMismatch, apierr.PKCEExpectedVerifier)

// IsLocked reports whether any lock about subject (see Key.About) runs.
func (l *Limiter) IsLocked(ctx context.Context, q store.Querier, subject string) (bool, error) {
	var one int
	err := q.QueryRowContext(ctx, `SELECT 1 FROM attempt_counters WHERE subject = $1 AND locked_until > $2 LIMIT 1`,
		subject, store.Millis(l.clock.Now())).Scan(&one)
	if errors.Is(store.MapError(err), store.ErrNotFound) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("ratelimit: is locked: %w", err)
	}
	return true, nil
}

// Unlock ends rule's locks about subject and forgets their counts (a
// password change ends the address's password lockouts). Other rules'
// locks about the same subject stay: what ends one lock (a new password)
// need not say anything about the secret another guards (an MFA code).
// A rule's buckets are its name and a colon, then the key's hash.
func (l *Limiter) Unlock(ctx context.Context, q store.Querier, rule Rule, subject string) error {
	prefix := rule.Name + ":"
	if _, err := q.ExecContext(ctx, `DELETE FROM attempt_counters WHERE subject = $1 AND substr(bucket, 1, $2) = $3`,
		subject, len(prefix), prefix); err != nil {
		return fmt.Errorf("ratelimit: unlock %s: %w", rule.Name, err)
	}
	return nil
}

// slowdown is the turn a SlowOnly rule gives at a count of hits: none up
// to the limit, then a step per further hit, up to SlowMax.
func (r Rule) slowdown(hits int) time.Duration {
	if hits <= r.Limit {
		return 0
	}
	step := r.SlowStep
	if step <= 0 {
		step = 250 * time.Millisecond
	}
	return min(time.Duration(hits-r.Limit)*step, r.slowMax())
}

func (r Rule) slowMax() time.Duration {
	if r.SlowMax <= 0 {
		return 3 * time.Second
	}
	return r.SlowMax
}

// slowQueue is the longest a SlowOnly rule lets an attempt wait in line.
func (r Rule) slowQueue() time.Duration {
	if r.SlowQueue <= 0 {
		return 3 * r.slowMax()
	}
	return r.SlowQueue
}
