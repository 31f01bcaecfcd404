package ratelimit

import (
	"context"
	"errors"
	"fmt"

	"github.com/latchkey/latchkey/internal/store"
)

// GuardIn is Guard with the reservation, the check and the settling in one
// write transaction instead of three: check writes through q (spending a
// code, creating the session), and the counted attempt commits with it.
// Concurrent guesses still cannot all pass a stale count: every key's
// counter row is written first, so they queue on SQLite's one writer, and
// on PostgreSQL on the rows' locks, until this transaction ends.
//
// The result settles the transaction as Settle settles an Attempt:
//   - a refusal (a lock, a limit) rolls everything back, counting nothing;
//   - a wrong credential (isFailure) commits the hits, the check's own
//     writes (an attempt counted on the code) and any lock;
//   - success commits with each rule's Outcome applied;
//   - anything else rolls back, which gives every hit back (Abandon).
//
// A rule that only slows (SlowOnly) must wait before the check, and no
// wait may hold the writer: when one applies, the transaction is rolled
// back and GuardIn runs as Guard, with check in a transaction of its own.
func (l *Limiter) GuardIn(ctx context.Context, check func(q store.Querier) error, isFailure func(error) bool, keys ...Key) error {
	sorted := sortKeys(ctx, keys)
	now := l.clock.Now()
	var checkErr error
	var slow bool
	err := l.db.Tx(ctx, func(q store.Querier) error {
		checkErr, slow = nil, false
		a, refusal, err := l.reserveIn(ctx, q, sorted, now)
		switch {
		case err != nil:
			return fmt.Errorf("ratelimit: reserve: %w", err)
		case refusal != nil:
			return refusal
		case a.delay > 0:
			slow = true
			return errSlow
		}
		checkErr = check(q)
		switch {
		case checkErr == nil:
			return a.settleIn(ctx, q, func(r reserved) Outcome { return r.key.Rule.OnSuccess })
		case isFailure(checkErr):
			return a.failIn(ctx, q)
		default:
			return checkErr
		}
	})
	if slow {
		return l.Guard(ctx, func() error { return checkTx(ctx, l.db, check, isFailure) }, isFailure, keys...)
	}
	if err != nil {
		return err
	}
	return checkErr
}

var errSlow = errors.New("ratelimit: slowed")

// checkTx runs check in a transaction of its own that commits on success
// and on a wrong credential (whose counted attempt must stay).
func checkTx(ctx context.Context, db *store.DB, check func(q store.Querier) error, isFailure func(error) bool) error {
	var checkErr error
	err := db.Tx(ctx, func(q store.Querier) error {
		checkErr = check(q)
		if checkErr != nil && !isFailure(checkErr) {
			return checkErr
		}
		return nil
	})
	if err != nil {
		return err
	}
	return checkErr
}
