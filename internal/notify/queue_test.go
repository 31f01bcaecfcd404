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

		// A message that never goes through is dropped after queueTries.
		f.n = 1000
		if err := q.Send(ctx, loginEmail(t, "bob@example.com")); err != nil {
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
