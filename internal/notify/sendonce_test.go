package notify

import (
	"context"
	"errors"
	"testing"

	"github.com/latchkey/latchkey/internal/apierr"
	"github.com/latchkey/latchkey/internal/clock"
	"github.com/latchkey/latchkey/internal/store"
	"github.com/latchkey/latchkey/internal/store/storetest"
)

// serverMailer sends through the outbox but only by Send, as a mailer that
// talks to a server (SMTP) does, failing while down is set.
type serverMailer struct {
	ob   *Outbox
	down *bool
}

var errServerDown = errors.New("smtp: 421 service not available")

func (m serverMailer) Send(ctx context.Context, e Email) error {
	if *m.down {
		return errServerDown
	}
	return m.ob.Send(ctx, e)
}

// SendOnce runs sent only with the message out: in the transaction that
// queues it for a mailer that writes to the database, so that sent's
// failure unqueues it, and after a send that succeeded for one that talks
// to a server, never after one that failed (which undo answers instead).
func TestSendOnceRunsSentWithTheMessage(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		ob := NewOutbox(db, clock.Real{})
		queued := func(to string) int {
			msgs, err := ob.List(ctx, to, 0)
			if err != nil {
				t.Fatal(err)
			}
			return len(msgs)
		}
		build := func(to string) func(store.Querier) (Email, error) {
			return func(store.Querier) (Email, error) { return loginEmail(t, to), nil }
		}
		var undone, sentRuns int
		undo := func(context.Context) { undone++ }

		// Queued in the transaction: sent's failure rolls the message back.
		boom := errors.New("the after-send step failed")
		err := SendOnce(ctx, db, ob, build("rolled@example.com"), undo, func(store.Querier) error { sentRuns++; return boom })
		if !errors.Is(err, boom) || sentRuns != 1 || undone != 0 {
			t.Fatalf("failing sent in the transaction: err %v, sent %d, undo %d", err, sentRuns, undone)
		}
		if n := queued("rolled@example.com"); n != 0 {
			t.Fatalf("%d messages kept although sent failed in their transaction", n)
		}
		if err := SendOnce(ctx, db, ob, build("kept@example.com"), undo, func(store.Querier) error { sentRuns++; return nil }); err != nil {
			t.Fatal(err)
		}
		if n := queued("kept@example.com"); n != 1 || sentRuns != 2 {
			t.Fatalf("queued %d, sent ran %d times", n, sentRuns)
		}

		// Sent to a server: sent runs after a send that went out only.
		down := true
		m := serverMailer{ob: ob, down: &down}
		if _, ok := AsTx(m); ok {
			t.Fatal("the server mailer was offered inside transactions")
		}
		sentRuns = 0
		after := func(to string) func(store.Querier) error {
			return func(store.Querier) error {
				sentRuns++
				if n := queued(to); n != 1 {
					t.Errorf("sent ran with %d messages to %s out, want 1", n, to)
				}
				return nil
			}
		}
		err = SendOnce(ctx, db, m, build("down@example.com"), undo, after("down@example.com"))
		if !apierr.Is(err, apierr.EmailDeliveryFailed) || !errors.Is(err, errServerDown) {
			t.Fatalf("send through a server that is down: %v", err)
		}
		if sentRuns != 0 || undone != 1 {
			t.Fatalf("failed send: sent ran %d times, undo %d, want 0 and 1", sentRuns, undone)
		}
		down = false
		if err := SendOnce(ctx, db, m, build("up@example.com"), undo, after("up@example.com")); err != nil {
			t.Fatal(err)
		}
		if sentRuns != 1 || undone != 1 {
			t.Fatalf("sent: sent ran %d times, undo %d, want 1 and 1", sentRuns, undone)
		}
		err = SendOnce(ctx, db, m, build("late@example.com"), undo, func(store.Querier) error { return boom })
		if !errors.Is(err, boom) || undone != 1 {
			t.Fatalf("failing sent after the send: err %v, undo %d", err, undone)
		}
	})
}
