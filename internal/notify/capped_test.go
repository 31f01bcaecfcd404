package notify_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
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

// A send the customer's server asked for (the backend face,
// ratelimit.OnBehalf) is neither refused nor counted, in a transaction or
// not: past the cap it is delivered, and the SDK face still gets its whole
// allowance after it.
func TestCappedLeavesTheBackendFaceAlone(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		clk := clock.NewFake(t0.Truncate(time.Hour))
		ob := notify.NewOutbox(db, clk)
		m := notify.Capped(ob, ratelimit.New(db, clk))
		txm, _ := notify.AsTx(m)
		backend := ratelimit.OnBehalf(context.Background())
		msg, err := notify.EmailOTPEmail("ada@acme.test", notify.CodeData{ProjectID: "project-a", ProjectName: "App",
			Code: "123456", ExpiresIn: 10 * time.Minute})
		if err != nil {
			t.Fatal(err)
		}
		for i := range notify.SendPerRecipient.Limit + 1 {
			if err := m.Send(backend, msg); err != nil {
				t.Fatalf("backend send %d: %v", i, err)
			}
			if err := db.Tx(backend, func(q store.Querier) error { return txm.SendIn(backend, q, msg) }); err != nil {
				t.Fatalf("backend send %d in a transaction: %v", i, err)
			}
		}
		for i := range notify.SendPerRecipient.Limit {
			if err := m.Send(context.Background(), msg); err != nil {
				t.Fatalf("SDK send %d after the backend's: %v", i, err)
			}
		}
		if err := m.Send(context.Background(), msg); !apierr.Is(notify.DeliveryError(err), apierr.TooManyRequests) {
			t.Fatalf("SDK send past the cap: %v", err)
		}
		if err := m.Send(backend, msg); err != nil {
			t.Fatalf("backend send once the SDK face is capped: %v", err)
		}
		want := 2*(notify.SendPerRecipient.Limit+1) + notify.SendPerRecipient.Limit + 1
		if msgs, _ := ob.List(context.Background(), "ada@acme.test", 200); len(msgs) != want {
			t.Fatalf("%d messages delivered, want %d", len(msgs), want)
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

// The cap counts a mailbox, not a spelling of it: a "+tag" (subaddress,
// RFC 5233) and, at Gmail, dots in the local part reach the same inbox,
// and anyone may vary them for free. Were each spelling its own key, a
// stranger with the public token would send one inbox thirty emails an
// hour per variant.
func TestCappedCountsSubaddressesAsTheirMailbox(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		clk := clock.NewFake(t0.Truncate(time.Hour))
		m := notify.Capped(notify.NewOutbox(db, clk), ratelimit.New(db, clk))
		for _, c := range []struct {
			base    string
			variant func(i int) string
		}{
			{"ada@acme.test", func(i int) string { return fmt.Sprintf("ada+%d@acme.test", i) }},
			{"ada.lovelace@gmail.com", func(i int) string { return fmt.Sprintf("adalovelace+%d@gmail.com", i) }},
			{"adalovelace@googlemail.com", func(i int) string {
				local := "adalovelace"
				return local[:i%10+1] + "." + local[i%10+1:] + strings.Repeat("+x", i/10) + "@googlemail.com"
			}},
		} {
			for i := range notify.SendPerRecipient.Limit {
				if err := sendCode(ctx, m, "project-a", c.variant(i)); err != nil {
					t.Fatalf("send %d to %s: %v", i, c.variant(i), err)
				}
			}
			if err := sendCode(ctx, m, "project-a", c.base); !apierr.Is(notify.DeliveryError(err), apierr.TooManyRequests) {
				t.Fatalf("send to %s past the cap its variants used up: %v", c.base, err)
			}
		}
		// Elsewhere a dot is part of the name, and a local part that is
		// all tag is not emptied into some other key.
		for _, to := range []string{"a.da@acme.test", "+ada@acme.test"} {
			if err := sendCode(ctx, m, "project-a", to); err != nil {
				t.Fatalf("send to %s: %v", to, err)
			}
		}
	})
}
