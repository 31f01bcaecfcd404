package notify

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"
)

// sendOK sends a batch of n login emails and fails the test on any error.
func sendOK(t *testing.T, s *SMTP, prefix string, n int) {
	t.Helper()
	ms := make([]Email, n)
	for i := range ms {
		ms[i] = loginEmail(t, fmt.Sprintf("%s-%d@example.com", prefix, i))
	}
	for i, err := range s.SendAll(context.Background(), ms) {
		if err != nil {
			t.Fatalf("%s message %d: %v", prefix, i, err)
		}
	}
}

// waitMessages waits for Mailpit to hold n messages.
func waitMessages(t *testing.T, mp mailpit, n int) {
	t.Helper()
	var list struct{ Messages []mpSummary }
	for deadline := time.Now().Add(5 * time.Second); len(list.Messages) < n && time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		getJSON(t, mp.api+"/api/v1/messages?limit=500", &list)
	}
	if len(list.Messages) != n {
		t.Fatalf("mailpit holds %d messages, want %d", len(list.Messages), n)
	}
}

// A connection that delivered a batch carries the next one, and Close
// ends it.
func TestSMTPKeepsTheConnectionForTheNextBatch(t *testing.T) {
	t.Parallel()
	mp, p, s := proxiedSMTP(t)
	sendOK(t, s, "first", 2)
	sendOK(t, s, "second", 1)
	waitMessages(t, mp, 3)
	if n := p.dials.Load(); n != 1 {
		t.Fatalf("%d connections for two batches, want 1", n)
	}
	p.waitOpen(t, 1)
	s.Close()
	p.waitOpen(t, 0)
	// After Close, a batch still goes out, over a connection of its own
	// that is not kept.
	sendOK(t, s, "after", 1)
	waitMessages(t, mp, 4)
	p.waitOpen(t, 0)
}

// A server that closed the idle connection costs nothing but a new dial:
// the batch is not failed and retried later.
func TestSMTPRedialsWhenTheIdleConnectionWasClosed(t *testing.T) {
	t.Parallel()
	mp, p, s := proxiedSMTP(t)
	sendOK(t, s, "first", 1)
	p.cut()
	p.waitOpen(t, 0)
	sendOK(t, s, "second", 2)
	waitMessages(t, mp, 3)
	if n := p.dials.Load(); n != 2 {
		t.Fatalf("%d connections, want 2", n)
	}
}

// A connection idle for longer than smtpIdleFor is closed, not reused.
func TestSMTPClosesExpiredIdleConnections(t *testing.T) {
	t.Parallel()
	mp, p, s := proxiedSMTP(t)
	var mu sync.Mutex
	now := time.Date(2026, 11, 27, 10, 0, 0, 0, time.UTC)
	s.now = func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	sendOK(t, s, "first", 1)
	mu.Lock()
	now = now.Add(smtpIdleFor + time.Second)
	mu.Unlock()
	sendOK(t, s, "second", 1)
	if n := p.dials.Load(); n != 2 {
		t.Fatalf("%d connections, want 2 (the idle one had expired)", n)
	}
	p.waitOpen(t, 1) // the expired one is gone, the new one kept
	waitMessages(t, mp, 2)
}

// A batch that did not go through cleanly does not leave its connection
// for the next one, and a connection is retired after smtpReuseMax
// messages.
func TestSMTPKeepsOnlyCleanConnections(t *testing.T) {
	t.Parallel()
	mp, p, s := proxiedSMTP(t, "--smtp-allowed-recipients", "^ok")
	errs := s.SendAll(context.Background(), []Email{loginEmail(t, "ok-1@example.com"), loginEmail(t, "refused@example.com")})
	if errs[0] != nil || errs[1] == nil {
		t.Fatalf("results %v: want only the refused recipient to fail", errs)
	}
	p.waitOpen(t, 0)
	sendOK(t, s, "ok-a", smtpReuseMax-1)
	sendOK(t, s, "ok-b", 1) // the 100th message over this connection
	p.waitOpen(t, 0)
	if n := p.dials.Load(); n != 2 {
		t.Fatalf("%d connections, want 2", n)
	}
	waitMessages(t, mp, smtpReuseMax+1)
}

// Each message is one transaction (MAIL, RCPT, DATA) with no RSET after
// it; a refused recipient fails its message alone, RSET ends that
// transaction, and the next message goes over the same connection. A kept
// connection is checked with one NOOP before its next batch, a new one not
// at all.
func TestSMTPSendsEachMessageInOneTransaction(t *testing.T) {
	t.Parallel()
	mp, p, s := proxiedSMTP(t, "--smtp-allowed-recipients", "^ok")
	sendOK(t, s, "ok-first", 3)
	if n, m := p.commands("RSET"), p.commands("NOOP"); n != 0 || m != 0 {
		t.Fatalf("a new connection's batch of three sent %d RSET and %d NOOP, want none", n, m)
	}
	errs := s.SendAll(context.Background(), []Email{loginEmail(t, "ok-a@example.com"),
		loginEmail(t, "refused@example.com"), loginEmail(t, "ok-b@example.com")})
	if errs[0] != nil || errs[1] == nil || errs[2] != nil {
		t.Fatalf("results %v: want only the refused recipient to fail", errs)
	}
	if !strings.Contains(errs[1].Error(), "550") {
		t.Fatalf("refusal %q does not carry the server's reply", errs[1])
	}
	if n, m := p.commands("RSET"), p.commands("NOOP"); n != 1 || m != 1 {
		t.Fatalf("the kept connection's batch sent %d RSET and %d NOOP, want one of each", n, m)
	}
	if n := p.dials.Load(); n != 1 {
		t.Fatalf("%d connections, want 1", n)
	}
	waitMessages(t, mp, 5)
}

// Concurrent batches (the outbox's workers) each take a connection of
// their own, and keep at most smtpIdleMax of them.
func TestSMTPConcurrentBatches(t *testing.T) {
	t.Parallel()
	mp, p, s := proxiedSMTP(t)
	const workers, rounds = 12, 3
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for r := range rounds {
				for i, err := range s.SendAll(context.Background(), []Email{loginEmail(t, fmt.Sprintf("w%d-r%d@example.com", w, r))}) {
					if err != nil {
						t.Errorf("worker %d round %d message %d: %v", w, r, i, err)
					}
				}
			}
		}()
	}
	wg.Wait()
	waitMessages(t, mp, workers*rounds)
	if n := p.dials.Load(); n > workers*rounds-1 {
		t.Errorf("%d connections for %d batches: none was reused", n, workers*rounds)
	}
	s.pool.mu.Lock()
	idle := len(s.pool.idle)
	s.pool.mu.Unlock()
	if idle > smtpIdleMax {
		t.Errorf("%d idle connections kept, want at most %d", idle, smtpIdleMax)
	}
	p.waitOpen(t, idle)
}
