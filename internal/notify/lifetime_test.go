package notify

import (
	"context"
	"testing"
	"time"

	"github.com/latchkey/latchkey/internal/clock"
	"github.com/latchkey/latchkey/internal/store"
	"github.com/latchkey/latchkey/internal/store/storetest"
)

// deliverFor runs the queue's rounds for d of fake time, each as soon as
// a message is due, as Run does, and returns the rounds that claimed one.
func deliverFor(t *testing.T, q *Queue, clk *clock.Fake, d time.Duration) int {
	t.Helper()
	ctx := context.Background()
	rounds := 0
	for end := clk.Now().Add(d); clk.Now().Before(end); clk.Advance(5 * time.Second) {
		n, err := q.Deliver(ctx)
		if err != nil {
			t.Fatalf("deliver: %v", err)
		}
		rounds += n
	}
	return rounds
}

// A mail server that refuses for longer than the queue's back-off steps
// (an outage of forty minutes, credentials being fixed) does not cost a
// message whose link is still good: an invitation lives a week, and was
// dropped after its sixth try, under half an hour in, while its link had
// days to run. Once the link has expired, a message is dropped at its
// next failure, however few tries it had; one that expired before it was
// tried at all is not sent; and none is retried past queueLife.
func TestQueueKeepsMailWhileItsLinkIsGood(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		clk := clock.NewFake(time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC))
		f := &flaky{n: 1 << 30}
		q := NewQueue(db, clk, testBox(t), f, quietLog())
		invite, err := MagicLinkInviteEmail("ada@example.com", InviteData{LinkData: LinkData{ProjectID: "p", ProjectName: "Acme",
			URL: "https://app.example.com/authenticate?token=tok_1", ExpiresIn: 7 * 24 * time.Hour}})
		if err != nil {
			t.Fatal(err)
		}
		code, err := EmailOTPEmail("bob@example.com", CodeData{ProjectID: "p", ProjectName: "Acme", Code: "123456",
			ExpiresIn: 3 * time.Minute})
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range []Email{invite, code} {
			if err := q.Send(ctx, e); err != nil {
				t.Fatal(err)
			}
		}
		tries := deliverFor(t, q, clk, 40*time.Minute)
		if left, _ := q.Pending(ctx); left != 1 {
			t.Fatalf("%d messages queued after forty minutes of refusals, want the invitation only", left)
		}
		if tries < queueTries+1 {
			t.Fatalf("%d attempts in forty minutes", tries)
		}
		f.mu.Lock()
		f.n = 0
		f.mu.Unlock()
		clk.Advance(retryAfter(queueTries))
		deliverFor(t, q, clk, 10*time.Second)
		if left, _ := q.Pending(ctx); left != 0 || len(f.sent) != 1 || f.sent[0] != "ada@example.com" {
			t.Fatalf("after the outage: %d left, sent %v; want the invitation delivered", left, f.sent)
		}

		// A code whose lifetime ran out while it waited is not sent.
		if err := q.Send(ctx, code); err != nil {
			t.Fatal(err)
		}
		clk.Advance(4 * time.Minute)
		deliverFor(t, q, clk, 10*time.Second)
		if left, _ := q.Pending(ctx); left != 0 || len(f.sent) != 1 {
			t.Fatalf("an expired code: %d left, sent %v", left, f.sent)
		}

		// A server that refuses a week-long invitation for a day is not
		// asked for the rest of the week (queueLife).
		f.mu.Lock()
		f.n = 1 << 30
		f.mu.Unlock()
		if err := q.Send(ctx, invite); err != nil {
			t.Fatal(err)
		}
		for end := clk.Now().Add(queueLife + time.Hour); clk.Now().Before(end); clk.Advance(retryAfter(queueTries)) {
			if _, err := q.Deliver(ctx); err != nil {
				t.Fatal(err)
			}
		}
		if left, _ := q.Pending(ctx); left != 0 {
			t.Fatalf("an invitation refused for %v is still queued", queueLife+time.Hour)
		}
	})
}
