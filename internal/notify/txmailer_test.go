package notify

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/latchkey/latchkey/internal/clock"
	"github.com/latchkey/latchkey/internal/store"
	"github.com/latchkey/latchkey/internal/store/storetest"
)

// The queue and the dev outbox write inside the caller's transaction: a
// message exists if and only if the transaction commits, and the delivery
// loop is woken only after the commit. A mailer that talks to a server is
// never offered for use inside a transaction.
func TestTxMailersWriteWithTheTransaction(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		q := NewQueue(db, clock.Real{}, testBox(t), &flaky{}, quietLog())
		ob := NewOutbox(db, clock.Real{})
		m, ok := AsTx(Fanout(q, ob))
		if !ok {
			t.Fatal("queue and outbox together are not transactional")
		}
		if _, ok := AsTx(Fanout(q, newSMTP(t, "smtp://127.0.0.1:1", nil))); ok {
			t.Fatal("a fanout with an SMTP mailer was offered inside transactions")
		}
		if _, ok := AsTx(newSMTP(t, "smtp://127.0.0.1:1", nil)); ok {
			t.Fatal("SMTP was offered inside transactions")
		}

		boom := errors.New("a later step failed")
		err := db.Tx(ctx, func(tx store.Querier) error {
			if err := m.SendIn(ctx, tx, loginEmail(t, "rolled@example.com")); err != nil {
				return err
			}
			select {
			case <-q.wake:
				t.Error("the delivery loop was woken before the commit")
			default:
			}
			return boom
		})
		if !errors.Is(err, boom) {
			t.Fatalf("tx: %v", err)
		}
		if n, _ := q.Pending(ctx); n != 0 {
			t.Fatalf("%d messages queued by a rolled-back transaction", n)
		}
		if msgs, _ := ob.List(ctx, "rolled@example.com", 0); len(msgs) != 0 {
			t.Fatalf("%d outbox messages kept by a rolled-back transaction", len(msgs))
		}

		if err := db.Tx(ctx, func(tx store.Querier) error { return m.SendIn(ctx, tx, loginEmail(t, "kept@example.com")) }); err != nil {
			t.Fatal(err)
		}
		if n, _ := q.Pending(ctx); n != 1 {
			t.Fatalf("%d messages queued by a committed transaction, want 1", n)
		}
		if msgs, _ := ob.List(ctx, "kept@example.com", 0); len(msgs) != 1 {
			t.Fatalf("%d outbox messages after the commit, want 1", len(msgs))
		}
		select {
		case <-q.wake:
		case <-time.After(time.Second):
			t.Fatal("the delivery loop was not woken after the commit")
		}
	})
}
