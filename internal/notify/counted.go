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

// SendCounted sends one login email the way every one goes out. build runs
// in one write transaction of db and returns the message, having written
// what the message carries (a code, a link, a new member) and counted its
// own limits. Then:
//
//   - when m only writes to the database (AsTx), the message is queued in
//     that same transaction, so it exists exactly when build's writes do;
//   - the client address is counted last in the transaction: every send
//     from one address updates that one row, and on PostgreSQL its lock is
//     then held only until the commit, not through the whole send;
//   - a send refused for any other reason in the catalogue still counts
//     against the address, after the rollback (ratelimit.CountRefused);
//   - a mailer that talks to a server (SMTP) runs after the commit, never
//     while the writer is held; when it fails, undo spends what nobody
//     received, and the answer is email_delivery_failed (or the
//     per-recipient cap's refusal, DeliveryError).
func SendCounted(ctx context.Context, db *store.DB, m Mailer, limit AddressLimit,
	build func(q store.Querier) (Email, error), undo func(ctx context.Context)) error {
	txm, inTx := AsTx(m)
	var msg Email
	var addressRefused bool
	err := db.Tx(ctx, func(q store.Querier) error {
		addressRefused = false // a retried transaction starts over
		var err error
		if msg, err = build(q); err != nil {
			return err
		}
		if inTx {
			if err := txm.SendIn(ctx, q, msg); err != nil {
				return DeliveryError(err)
			}
		}
		if err := limit.Limiter.AllowIn(ctx, q, limit.Rule, limit.Key); err != nil {
			addressRefused = true
			return err
		}
		return nil
	})
	switch {
	case err != nil && !addressRefused:
		return limit.Limiter.CountRefused(ctx, limit.Rule, limit.Key, err)
	case err != nil:
		return err
	}
	if !inTx {
		if err := m.Send(ctx, msg); err != nil {
			undo(ctx)
			return DeliveryError(err)
		}
	}
	return nil
}
