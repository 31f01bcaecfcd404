package ratelimit

import (
	"context"
	"errors"

	"github.com/latchkey/latchkey/internal/store"
)

// SettleIn writes a correct check's settling through the transaction q it
// is given, so the settling commits with what the success leads to.
type SettleIn func(q store.Querier) error

// GuardThen reserves an attempt on every key, waits out any slow-down,
// runs check, and settles a refusal or a failed check by its result (see
// Settle). It is for a check too slow to hold the writer (a password hash)
// whose success leads to a write transaction (the login): the reservation
// commits before check runs. After a correct check, then
// runs and is handed settle, which writes the success's settling through
// then's transaction: a login then commits in one transaction instead of
// two.
//
// A correct check is always settled as a success: when then returns
// before settle's transaction committed (an error before it, or a
// transaction that rolled back), the settling is written on its own (as
// Succeeded writes it) and joined to then's error.
func (l *Limiter) GuardThen(ctx context.Context, check func() error, isFailure func(error) bool,
	then func(settle SettleIn) error, keys ...Key) error {
	a, err := l.Reserve(ctx, keys...)
	if err != nil {
		return err
	}
	if d := a.Delay(); d > 0 {
		// An attempt that leaves while it waits (a client that hung up)
		// keeps its turn in the line taken, so it counts as a failure on
		// the line's key, and only there (see LeftLine).
		if err := l.sleep(ctx, d); err != nil {
			return errors.Join(err, a.LeftLine(ctx))
		}
	}
	if err := check(); err != nil {
		return a.Settle(ctx, err, isFailure)
	}
	succeeded := func(r reserved) Outcome { return r.key.Rule.OnSuccess }
	committed := false
	settle := func(q store.Querier) error {
		if err := a.settleIn(ctx, q, succeeded); err != nil {
			return err
		}
		store.AfterCommit(q, func() { committed = true })
		return nil
	}
	err = then(settle)
	if committed {
		a.done = true
		return err
	}
	if serr := a.settle(ctx, succeeded); serr != nil {
		return errors.Join(err, serr)
	}
	return err
}
