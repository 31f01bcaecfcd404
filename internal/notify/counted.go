package notify

import (
	"context"

	"github.com/latchkey/latchkey/internal/ratelimit"
	"github.com/latchkey/latchkey/internal/store"
)

// AddressLimit is the send limit of one client address: every login email
// (a code, a link, for an organization or for discovery) counts against it.
type AddressLimit struct {
	Limiter *ratelimit.Limiter
	Rule    ratelimit.Rule
	Key     string
}

// SendOnce sends one email the way every one goes out. build runs in one
// write transaction of db and returns the message, having written what
// the message carries (a code, a link, a new member) and counted its own
// limits. Then:
//
//   - when m only writes to the database (AsTx), the message is queued in
//     that same transaction, so it exists exactly when build's writes do,
//     and sent runs there after it: a refusal rolls everything back;
//   - a mailer that talks to a server (SMTP) runs after the commit, never
//     while the writer is held; when it fails, undo spends what nobody
//     received, and the answer is email_delivery_failed (or the
//     per-recipient cap's refusal, DeliveryError); when it succeeds, sent
//     runs through db, and its error is the answer.
//
// sent (nil: nothing) is what may happen only once the message is out,
// such as spending the links it replaces; undo must be safe to call with
// whatever build left behind.
func SendOnce(ctx context.Context, db *store.DB, m Mailer, build func(q store.Querier) (Email, error),
	undo func(ctx context.Context), sent func(q store.Querier) error) error {
	_, err := sendOnce(ctx, db, m, build, nil, undo, sent)
	return err
}

// SendCounted sends one login email (SendOnce, with nothing to do once
// sent) and counts it against the client address limit:
//
//   - the address is counted last in the transaction: every send from one
//     address updates that one row, and on PostgreSQL its lock is then
//     held only until the commit, not through the whole send;
//   - a send refused for any other reason in the catalogue still counts
//     against the address, after the rollback (ratelimit.CountRefused).
func SendCounted(ctx context.Context, db *store.DB, m Mailer, limit AddressLimit,
	build func(q store.Querier) (Email, error), undo func(ctx context.Context)) error {
	var addressRefused bool
	committed, err := sendOnce(ctx, db, m,
		func(q store.Querier) (Email, error) {
			addressRefused = false // a retried transaction starts over
			return build(q)
		},
		func(q store.Querier) error {
			if err := limit.Limiter.AllowIn(ctx, q, limit.Rule, limit.Key); err != nil {
				addressRefused = true
				return err
			}
			return nil
		}, undo, nil)
	if err != nil && !committed && !addressRefused {
		return limit.Limiter.CountRefused(ctx, limit.Rule, limit.Key, err)
	}
	return err
}

// sendOnce is SendOnce with last (nil: nothing), which runs last in the
// transaction whatever the mailer. committed reports whether the
// transaction committed, so that a caller can tell a refusal, which left
// nothing written, from a send that failed after the commit.
func sendOnce(ctx context.Context, db *store.DB, m Mailer, build func(q store.Querier) (Email, error),
	last func(q store.Querier) error, undo func(ctx context.Context), sent func(q store.Querier) error) (committed bool, err error) {
	txm, inTx := AsTx(m)
	var msg Email
	err = db.Tx(ctx, func(q store.Querier) error {
		var err error
		if msg, err = build(q); err != nil {
			return err
		}
		if inTx {
			if err := txm.SendIn(ctx, q, msg); err != nil {
				return DeliveryError(err)
			}
			if sent != nil {
				if err := sent(q); err != nil {
					return err
				}
			}
		}
		if last != nil {
			return last(q)
		}
		return nil
	})
	if err != nil {
		return false, err
	}
	if inTx {
		return true, nil
	}
	if err := m.Send(ctx, msg); err != nil {
		undo(ctx)
		return true, DeliveryError(err)
	}
	if sent != nil {
		return true, sent(db)
	}
	return true, nil
}
