package notify_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/latchkey/latchkey/internal/apierr"
	"github.com/latchkey/latchkey/internal/clock"
	"github.com/latchkey/latchkey/internal/notify"
	"github.com/latchkey/latchkey/internal/ratelimit"
	"github.com/latchkey/latchkey/internal/store"
	"github.com/latchkey/latchkey/internal/store/storetest"
)

// sendCode sends a code email of project to to through m.
func sendCode(ctx context.Context, m notify.Mailer, project, to string) error {
	msg, err := notify.EmailOTPEmail(to, notify.CodeData{ProjectID: project, ProjectName: "App", Code: "123456",
		ExpiresIn: 10 * time.Minute})
	if err != nil {
		return err
	}
	return m.Send(ctx, msg)
}

// Capped lets one recipient receive SendPerRecipient.Limit emails an
// hour from a project, refuses the next as too_many_requests (which
// DeliveryError keeps), and counts per project and per address; the next
// window starts afresh.
func TestCappedLimitsEachRecipientPerProject(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		clk := clock.NewFake(t0.Truncate(time.Hour))
		ob := notify.NewOutbox(db, clk)
		m := notify.Capped(ob, ratelimit.New(db, clk))
		if _, ok := notify.AsTx(m); !ok {
			t.Fatal("the capped outbox is no longer a TxMailer")
		}
		for i := range notify.SendPerRecipient.Limit {
			if err := sendCode(ctx, m, "project-a", "ada@acme.test"); err != nil {
				t.Fatalf("send %d: %v", i, err)
			}
		}
		err := sendCode(ctx, m, "project-a", "Ada@Acme.test")
		if !apierr.Is(notify.DeliveryError(err), apierr.TooManyRequests) {
			t.Fatalf("send past the cap: %v", err)
		}
		if msgs, _ := ob.List(ctx, "ada@acme.test", 100); len(msgs) != notify.SendPerRecipient.Limit {
			t.Fatalf("%d messages delivered, want %d", len(msgs), notify.SendPerRecipient.Limit)
		}
		for _, c := range []struct{ project, to string }{{"project-b", "ada@acme.test"}, {"project-a", "bob@acme.test"}} {
			if err := sendCode(ctx, m, c.project, c.to); err != nil {
				t.Fatalf("%s to %s: %v", c.project, c.to, err)
			}
		}
		clk.Advance(notify.SendPerRecipient.Window)
		if err := sendCode(ctx, m, "project-a", "ada@acme.test"); err != nil {
			t.Fatalf("send in the next window: %v", err)
		}
	})
}

// A send in a transaction counts in it: rolled back, it counts nothing.
// A message whose builder was given no project is not sent.
func TestCappedCountsInTheSendersTransaction(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		clk := clock.NewFake(t0.Truncate(time.Hour))
		m, _ := notify.AsTx(notify.Capped(notify.NewOutbox(db, clk), ratelimit.New(db, clk)))
		msg, err := notify.EmailOTPEmail("ada@acme.test", notify.CodeData{ProjectID: "project-a", ProjectName: "App",
			Code: "123456", ExpiresIn: 10 * time.Minute})
		if err != nil {
			t.Fatal(err)
		}
		rollback := errors.New("rolled back")
		for range notify.SendPerRecipient.Limit + 1 {
			if err := db.Tx(ctx, func(q store.Querier) error {
				if err := m.SendIn(ctx, q, msg); err != nil {
					return err
				}
				return rollback
			}); !errors.Is(err, rollback) {
				t.Fatalf("send in a transaction: %v", err)
			}
		}
		if err := m.Send(ctx, msg); err != nil {
			t.Fatalf("after sends that rolled back: %v", err)
		}
		msg.Project = ""
		if err := m.Send(ctx, msg); err == nil || apierr.Is(notify.DeliveryError(err), apierr.TooManyRequests) {
			t.Fatalf("a message without a project: %v", err)
		}
	})
}

// DeliveryError answers any failure but a public one as
// email_delivery_failed.
func TestDeliveryError(t *testing.T) {
	t.Parallel()
	if err := notify.DeliveryError(errors.New("smtp: 451")); !apierr.Is(err, apierr.EmailDeliveryFailed) {
		t.Fatalf("a mail server's failure: %v", err)
	}
	if err := notify.DeliveryError(apierr.New(apierr.TooManyRequests)); !apierr.Is(err, apierr.TooManyRequests) {
		t.Fatalf("the cap's refusal: %v", err)
	}
}
