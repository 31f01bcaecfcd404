package notify

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/latchkey/latchkey/internal/clock"
	"github.com/latchkey/latchkey/internal/secretbox"
	"github.com/latchkey/latchkey/internal/store"
	"github.com/latchkey/latchkey/internal/store/storetest"
)

func testBox(t *testing.T) *secretbox.Box {
	t.Helper()
	key, err := secretbox.ParseKey("dGVzdC1rZXktMzItYnl0ZXMtbG9uZy1mb3ItbGF0Y2g=")
	if err != nil {
		t.Fatal(err)
	}
	b, err := secretbox.New(key)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func quietLog() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

// A mail server that accepts connections and never answers: Send through
// the queue must return at once, and the message must sit sealed.
func TestQueueSendDoesNotWaitOnSMTP(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		defer ln.Close()
		go func() {
			for {
				c, err := ln.Accept()
				if err != nil {
					return
				}
				defer c.Close() // held open, silent
			}
		}()
		q := NewQueue(db, clock.Real{}, testBox(t), newSMTP(t, "smtp://"+ln.Addr().String(), nil), quietLog())
		e := loginEmail(t, "ada@example.com")
		start := time.Now()
		if err := q.Send(context.Background(), e); err != nil {
			t.Fatal(err)
		}
		// A Send that waited on the server would wait for its greeting
		// until stepTimeout (30 s); 5 s leaves a loaded machine's insert
		// room without letting that through.
		if d := time.Since(start); d > 5*time.Second {
			t.Fatalf("Send took %v with a silent mail server", d)
		}
		var sealed string
		if err := db.Read().QueryRowContext(context.Background(), `SELECT sealed FROM mail_queue`).Scan(&sealed); err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(sealed, secretbox.Prefix) || strings.Contains(sealed, "tok_123") || strings.Contains(sealed, "ada@") {
			t.Fatalf("queued message is not sealed: %.80s", sealed)
		}
	})
}

func TestQueueDeliversThroughMailpit(t *testing.T) {
	mp := startMailpit(t)
	db := storetest.SQLite(t)
	q := NewQueue(db, clock.Real{}, testBox(t), newSMTP(t, "smtp://"+mp.smtpAddr, nil), quietLog())
	e := loginEmail(t, "ada@example.com")
	if err := q.Send(context.Background(), e); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { q.Run(ctx); close(done) }()
	checkDelivered(t, mp, e)
	for deadline := time.Now().Add(5 * time.Second); ; {
		n, err := q.Pending(context.Background())
		if err == nil && n == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("delivered message still queued (%d, %v)", n, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
	cancel()
	<-done
}

// flaky fails its first n sends (a mail server refusing for a while).
type flaky struct {
	mu   sync.Mutex
	n    int
	sent []string
}

func (f *flaky) Send(_ context.Context, e Email) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.n > 0 {
		f.n--
		return errors.New("451 try again later")
	}
	f.sent = append(f.sent, e.To)
	return nil
}

func TestQueueRetriesThenDrops(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		clk := clock.NewFake(time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC))
		f := &flaky{n: 1}
		q := NewQueue(db, clk, testBox(t), f, quietLog())
		if err := q.Send(ctx, loginEmail(t, "ada@example.com")); err != nil {
			t.Fatal(err)
		}
		if n, err := q.Deliver(ctx); n != 1 || err != nil {
			t.Fatalf("first round: %d %v", n, err)
		}
		// Not due again until the back-off has passed.
		if n, _ := q.Deliver(ctx); n != 0 {
			t.Fatal("retried before its back-off")
		}
		clk.Advance(retryAfter(1))
		if n, err := q.Deliver(ctx); n != 1 || err != nil || len(f.sent) != 1 {
			t.Fatalf("retry: %d %v, sent %v", n, err, f.sent)
		}
		if n, _ := q.Pending(ctx); n != 0 {
			t.Fatalf("%d left after delivery", n)
		}

		// A message without a lifetime (a notice: no link, no code) that
		// never goes through is dropped after queueTries. (One with a
		// lifetime is kept as long as that: TestQueueKeepsMailWhileItsLinkIsGood.)
		f.n = 1000
		notice := loginEmail(t, "bob@example.com")
		notice.ValidFor = 0
		if err := q.Send(ctx, notice); err != nil {
			t.Fatal(err)
		}
		for i := 1; i <= queueTries; i++ {
			if n, _ := q.Deliver(ctx); n != 1 {
				t.Fatalf("attempt %d not made", i)
			}
			clk.Advance(retryAfter(i))
		}
		if n, _ := q.Pending(ctx); n != 0 {
			t.Fatalf("message kept after %d failed attempts", queueTries)
		}
	})
}

// Two replicas delivering from one queue send every message once.
func TestQueueClaimsAreExclusive(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		f := &flaky{}
		a := NewQueue(db, clock.Real{}, testBox(t), f, quietLog())
		b := NewQueue(db, clock.Real{}, testBox(t), f, quietLog())
		for i := range 100 {
			if err := a.Send(ctx, loginEmail(t, fmt.Sprintf("m%d@example.com", i))); err != nil {
				t.Fatal(err)
			}
		}
		var wg sync.WaitGroup
		for _, q := range []*Queue{a, b} {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for {
					if n, err := q.Deliver(ctx); err != nil || n == 0 {
						return
					}
				}
			}()
		}
		wg.Wait()
		seen := map[string]int{}
		for _, to := range f.sent {
			seen[to]++
		}
		if len(f.sent) != 100 || len(seen) != 100 {
			t.Fatalf("sent %d messages to %d addresses, want 100 once each", len(f.sent), len(seen))
		}
	})
}

// blocking holds each Send until released, standing for a replica that is
// mid-send (or has died mid-send) with its claim.
type blocking struct {
	entered chan struct{}
	release chan struct{}
}

func (b *blocking) Send(ctx context.Context, _ Email) error {
	b.entered <- struct{}{}
	select {
	case <-b.release:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// A claimed message is leased: while one replica holds it, another claims
// nothing (so it is not sent twice), and once the lease has run out with
// the message still queued, another replica claims it (so a replica that
// died mid-send loses nothing).
func TestQueueLeaseHoldsThenExpires(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		clk := clock.NewFake(time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC))
		stuck := &blocking{entered: make(chan struct{}), release: make(chan struct{})}
		a := NewQueue(db, clk, testBox(t), stuck, quietLog())
		f := &flaky{}
		b := NewQueue(db, clk, testBox(t), f, quietLog())
		if err := a.Send(ctx, loginEmail(t, "ada@example.com")); err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 1)
		go func() { _, err := a.Deliver(ctx); done <- err }()
		<-stuck.entered

		if n, err := b.Deliver(ctx); n != 0 || err != nil {
			t.Fatalf("another replica claimed a leased message: %d %v", n, err)
		}
		clk.Advance(queueLease - time.Millisecond)
		if n, err := b.Deliver(ctx); n != 0 || err != nil {
			t.Fatalf("claimed before the lease ran out: %d %v", n, err)
		}
		clk.Advance(time.Millisecond)
		if n, err := b.Deliver(ctx); n != 1 || err != nil || len(f.sent) != 1 {
			t.Fatalf("after the lease: claimed %d (%v), sent %v; want the message taken over", n, err, f.sent)
		}
		close(stuck.release)
		if err := <-done; err != nil {
			t.Fatal(err)
		}
		if n, _ := a.Pending(ctx); n != 0 {
			t.Fatalf("%d left", n)
		}
	})
}

// acceptThenStop stands for a mail server that accepts a message just as
// the process is told to stop: it takes the first message, then cancels
// the delivery round's context, and the sends after it find it ended.
type acceptThenStop struct {
	mu   sync.Mutex
	stop context.CancelFunc
	sent []string
}

func (a *acceptThenStop) Send(ctx context.Context, e Email) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	if err := ctx.Err(); err != nil {
		return err
	}
	a.sent = append(a.sent, e.To)
	a.stop()
	return nil
}

// A shutdown in the middle of a batch: the message the server accepted
// leaves the queue even though the round's context has ended (it is not
// sent again after a restart), and the messages cut off are handed back at
// once, without their attempt counted, rather than after the lease.
func TestQueueShutdownMidBatchSettlesTheBatch(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		clk := clock.NewFake(time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC))
		ctx, stop := context.WithCancel(context.Background())
		first := &acceptThenStop{stop: stop}
		q := NewQueue(db, clk, testBox(t), first, quietLog())
		q.Workers = 1
		for _, to := range []string{"a@example.com", "b@example.com", "c@example.com"} {
			if err := q.Send(ctx, loginEmail(t, to)); err != nil {
				t.Fatal(err)
			}
		}
		if n, _ := q.Deliver(ctx); n != 3 || len(first.sent) != 1 {
			t.Fatalf("claimed %d, sent %v; want 3 claimed and 1 sent before the stop", n, first.sent)
		}
		bg := context.Background()
		var handedBack int
		if err := db.Read().QueryRowContext(bg, `SELECT COUNT(*) FROM mail_queue WHERE locked_until = 0 AND attempts = 0`).Scan(&handedBack); err != nil {
			t.Fatal(err)
		}
		if left, _ := q.Pending(bg); left != 2 || handedBack != 2 {
			t.Fatalf("%d queued, %d of them handed back uncounted; want the 2 cut off", left, handedBack)
		}

		// The next process delivers the rest at once, and nothing more
		// once the lease would have run out.
		sink := &flaky{}
		next := NewQueue(db, clk, testBox(t), sink, quietLog())
		if n, err := next.Deliver(bg); n != 2 || err != nil {
			t.Fatalf("after the restart: claimed %d (%v), want the 2 cut off at once", n, err)
		}
		clk.Advance(queueLease)
		if n, err := next.Deliver(bg); n != 0 || err != nil {
			t.Fatalf("after the lease: claimed %d (%v)", n, err)
		}
		got := map[string]int{}
		for _, to := range append(first.sent, sink.sent...) {
			got[to]++
		}
		if len(got) != 3 || got["a@example.com"] != 1 || got["b@example.com"] != 1 || got["c@example.com"] != 1 {
			t.Fatalf("deliveries %v, want each message once", got)
		}
	})
}

// refusing refuses mail to one address permanently, as a 550 does.
type refusing struct {
	mu    sync.Mutex
	to    string
	tries int
	sent  []string
}

func (r *refusing) Send(_ context.Context, e Email) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if e.To == r.to {
		r.tries++
		return fmt.Errorf("550 5.1.1 no such user: %w", ErrUndeliverable)
	}
	r.sent = append(r.sent, e.To)
	return nil
}

// A permanent refusal drops the message at its first attempt; the others
// of the batch are delivered.
func TestQueueDropsUndeliverableMail(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		clk := clock.NewFake(time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC))
		r := &refusing{to: "gone@example.com"}
		q := NewQueue(db, clk, testBox(t), r, quietLog())
		for _, to := range []string{"gone@example.com", "ada@example.com"} {
			if err := q.Send(ctx, loginEmail(t, to)); err != nil {
				t.Fatal(err)
			}
		}
		if n, err := q.Deliver(ctx); n != 2 || err != nil {
			t.Fatalf("deliver: %d %v", n, err)
		}
		if left, _ := q.Pending(ctx); left != 0 || r.tries != 1 || len(r.sent) != 1 {
			t.Fatalf("%d left, %d tries of the refused one, sent %v; want it dropped after one", left, r.tries, r.sent)
		}
	})
}

// A message that has had its tries is not claimed again (its last attempt's
// replica died before recording the result), and the sweep removes it.
func TestQueueSkipsAndSweepsExhaustedMail(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		clk := clock.NewFake(time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC))
		f := &flaky{n: 1}
		q := NewQueue(db, clk, testBox(t), f, quietLog())
		for _, to := range []string{"spent@example.com", "ada@example.com"} {
			if err := q.Send(ctx, loginEmail(t, to)); err != nil {
				t.Fatal(err)
			}
		}
		// The first message as a replica that died mid-attempt left it:
		// its last try claimed, the lease run out.
		if _, err := db.ExecContext(ctx, `UPDATE mail_queue SET attempts = $1, locked_until = $2
			WHERE mail_id = (SELECT MIN(mail_id) FROM mail_queue)`, queueTries, store.Millis(clk.Now())); err != nil {
			t.Fatal(err)
		}
		var spent string
		if err := db.Read().QueryRowContext(ctx, `SELECT mail_id FROM mail_queue WHERE attempts > 0`).Scan(&spent); err != nil {
			t.Fatal(err)
		}
		clk.Advance(time.Second)
		// The other message fails its first try and waits for its next.
		if n, err := q.Deliver(ctx); n != 1 || err != nil || f.n != 0 || len(f.sent) != 0 {
			t.Fatalf("claimed %d (%v), sent %v; want only the message with tries left, refused", n, err, f.sent)
		}
		for _, s := range q.Sweeps() {
			if _, err := s.Sweep(ctx, clk.Now()); err != nil {
				t.Fatal(err)
			}
		}
		var left int
		if err := db.Read().QueryRowContext(ctx, `SELECT COUNT(*) FROM mail_queue WHERE mail_id = $1`, spent).Scan(&left); err != nil || left != 0 {
			t.Fatalf("exhausted message still queued (%d, %v)", left, err)
		}
		if n, _ := q.Pending(ctx); n != 1 {
			t.Fatalf("%d queued after the sweep, want the message awaiting its retry", n)
		}
	})
}
