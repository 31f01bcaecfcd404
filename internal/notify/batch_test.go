package notify

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/latchkey/latchkey/internal/clock"
	"github.com/latchkey/latchkey/internal/store"
	"github.com/latchkey/latchkey/internal/store/storetest"
)

// smtpProxy forwards TCP connections to target, counts them, and can cut
// the open ones, as a server does with connections idle for too long.
type smtpProxy struct {
	addr  string
	dials atomic.Int32
	mu    sync.Mutex
	open  map[net.Conn]net.Conn // client side to server side
	said  bytes.Buffer          // everything clients sent, under mu
}

// Write records what a client sent (the proxy tees into it).
func (p *smtpProxy) Write(b []byte) (int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.said.Write(b)
}

// commands counts the lines clients sent that are exactly cmd.
func (p *smtpProxy) commands(cmd string) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return strings.Count("\r\n"+p.said.String(), "\r\n"+cmd+"\r\n")
}

func newProxy(t *testing.T, target string) *smtpProxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	p := &smtpProxy{addr: ln.Addr().String(), open: map[net.Conn]net.Conn{}}
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			p.dials.Add(1)
			up, err := net.Dial("tcp", target)
			if err != nil {
				c.Close()
				continue
			}
			p.mu.Lock()
			p.open[c] = up
			p.mu.Unlock()
			go func() { _, _ = io.Copy(up, io.TeeReader(c, p)); up.Close() }()
			go func() {
				_, _ = io.Copy(c, up)
				c.Close()
				p.mu.Lock()
				delete(p.open, c)
				p.mu.Unlock()
			}()
		}
	}()
	return p
}

// proxiedSMTP starts Mailpit (with extra flags) and returns it, a proxy
// in front of its SMTP port, and an SMTP mailer sending through the proxy.
func proxiedSMTP(t *testing.T, extra ...string) (mailpit, *smtpProxy, *SMTP) {
	t.Helper()
	mp := startMailpit(t, extra...)
	p := newProxy(t, mp.smtpAddr)
	return mp, p, newSMTP(t, "smtp://"+p.addr, nil)
}

// cut closes every open connection on both sides.
func (p *smtpProxy) cut() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for c, up := range p.open {
		c.Close()
		up.Close()
	}
}

// waitOpen waits for the number of open connections to become n.
func (p *smtpProxy) waitOpen(t *testing.T, n int) {
	t.Helper()
	open := -1
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		p.mu.Lock()
		open = len(p.open)
		p.mu.Unlock()
		if open == n {
			return
		}
	}
	t.Fatalf("%d connections open, want %d", open, n)
}

// SendAll delivers a batch over one connection, and a message that cannot
// be sent fails alone.
func TestSMTPSendAllUsesOneConnection(t *testing.T) {
	mp, p, s := proxiedSMTP(t)
	ms := []Email{loginEmail(t, "a@example.com"), {To: "not an address", Subject: "x", Text: "x"},
		loginEmail(t, "b@example.com"), loginEmail(t, "c@example.com")}
	errs := s.SendAll(context.Background(), ms)
	if errs[0] != nil || errs[2] != nil || errs[3] != nil || errs[1] == nil {
		t.Fatalf("results %v: want only the bad recipient to fail", errs)
	}
	if n := p.dials.Load(); n != 1 {
		t.Fatalf("%d connections for one batch, want 1", n)
	}
	var list struct{ Messages []mpSummary }
	for deadline := time.Now().Add(5 * time.Second); len(list.Messages) < 3 && time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		getJSON(t, mp.api+"/api/v1/messages", &list)
	}
	if len(list.Messages) != 3 {
		t.Fatalf("mailpit holds %d messages, want 3", len(list.Messages))
	}
}

// batchRecorder is a BatchMailer that records its batches and refuses one
// recipient.
type batchRecorder struct {
	mu      sync.Mutex
	batches []int
	sent    int
	refuse  string
}

func (b *batchRecorder) Send(ctx context.Context, e Email) error {
	return b.SendAll(ctx, []Email{e})[0]
}

func (b *batchRecorder) SendAll(_ context.Context, es []Email) []error {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.batches = append(b.batches, len(es))
	errs := make([]error, len(es))
	for i, e := range es {
		if e.To == b.refuse {
			errs[i] = errors.New("550 mailbox unavailable")
			continue
		}
		b.sent++
	}
	return errs
}

// The queue hands each worker's share of a claim to a BatchMailer at
// once; a refused message is rescheduled alone and the rest are removed.
func TestQueueDeliversInBatches(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		rec := &batchRecorder{refuse: "m7@example.com"}
		q := NewQueue(db, clock.Real{}, testBox(t), rec, quietLog())
		q.Workers = 4
		for i := range 20 {
			if err := q.Send(ctx, loginEmail(t, fmt.Sprintf("m%d@example.com", i))); err != nil {
				t.Fatal(err)
			}
		}
		n, err := q.Deliver(ctx)
		if n != 20 || err != nil {
			t.Fatalf("deliver: %d %v", n, err)
		}
		if len(rec.batches) != 4 || rec.sent != 19 {
			t.Fatalf("batches %v, %d sent; want 4 batches and 19 sent", rec.batches, rec.sent)
		}
		if left, _ := q.Pending(ctx); left != 1 {
			t.Fatalf("%d left queued, want the refused one", left)
		}
	})
}

// A recipient the server refuses permanently (5xx) and a message that
// cannot be written as mail are ErrUndeliverable, and the batch's other
// messages go through; a temporary refusal (4xx) is not.
func TestSMTPPermanentRefusalIsUndeliverable(t *testing.T) {
	mp := startMailpit(t, "--smtp-allowed-recipients", `^ok@`)
	s := newSMTP(t, "smtp://"+mp.smtpAddr, nil)
	errs := s.SendAll(context.Background(), []Email{loginEmail(t, "no@example.com"),
		{To: "not an address", Subject: "x", Text: "x"}, loginEmail(t, "ok@example.com")})
	if !errors.Is(errs[0], ErrUndeliverable) || !errors.Is(errs[1], ErrUndeliverable) || errs[2] != nil {
		t.Fatalf("results %v: want the refused and the malformed undeliverable, the other sent", errs)
	}

	busy := startMailpit(t, "--chaos-triggers", "Recipient:451:100")
	s = newSMTP(t, "smtp://"+busy.smtpAddr, nil)
	err := s.Send(context.Background(), loginEmail(t, "ok@example.com"))
	if err == nil || errors.Is(err, ErrUndeliverable) || !strings.Contains(err.Error(), "451") {
		t.Fatalf("temporary refusal: %v, want a 451 that is worth retrying", err)
	}
	// A permanent refusal of our sender is the configuration's (no SMTP
	// user, relay denied): retried, not dropped with the message.
	noAuth := startMailpit(t, "--chaos-triggers", "Sender:530:100")
	s = newSMTP(t, "smtp://"+noAuth.smtpAddr, nil)
	err = s.Send(context.Background(), loginEmail(t, "ok@example.com"))
	if err == nil || errors.Is(err, ErrUndeliverable) || !strings.Contains(err.Error(), "530") {
		t.Fatalf("refused sender: %v, want a 530 that is worth retrying", err)
	}
	// A 552 to RCPT is a temporary refusal (RFC 5321 4.5.3.1.10).
	full := startMailpit(t, "--chaos-triggers", "Recipient:552:100")
	s = newSMTP(t, "smtp://"+full.smtpAddr, nil)
	err = s.Send(context.Background(), loginEmail(t, "ok@example.com"))
	if err == nil || errors.Is(err, ErrUndeliverable) || !strings.Contains(err.Error(), "552") {
		t.Fatalf("552 to RCPT: %v, want a refusal that is worth retrying", err)
	}
}
