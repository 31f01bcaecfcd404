package notify

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net"
	"net/textproto"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/latchkey/latchkey/internal/clock"
	"github.com/latchkey/latchkey/internal/store"
	"github.com/latchkey/latchkey/internal/store/storetest"
)

// hangUpOnceSMTP is a loopback SMTP server whose first connection answers
// its first RCPT with 421 and closes, as a server going down or shedding
// load does ("421 4.3.2 Service shutting down"); every later connection
// accepts everything. It records the recipients of the messages it took.
type hangUpOnceSMTP struct {
	addr string
	mu   sync.Mutex
	hung bool
	took []string
}

func startHangUpOnceSMTP(t *testing.T) *hangUpOnceSMTP {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	s := &hangUpOnceSMTP{addr: ln.Addr().String()}
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go s.serve(c)
		}
	}()
	return s
}

func (s *hangUpOnceSMTP) received() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.took...)
}

func (s *hangUpOnceSMTP) serve(c net.Conn) {
	defer c.Close()
	s.mu.Lock()
	hangUp := !s.hung
	s.hung = true
	s.mu.Unlock()
	r := textproto.NewReader(bufio.NewReader(c))
	say := func(line string) bool { _, err := c.Write([]byte(line + "\r\n")); return err == nil }
	if !say("220 hangup ESMTP") {
		return
	}
	var rcpt string
	for {
		line, err := r.ReadLine()
		if err != nil {
			return
		}
		verb, arg, _ := strings.Cut(line, " ")
		reply := "250 2.0.0 Ok"
		switch strings.ToUpper(verb) {
		case "EHLO":
			reply = "250-hangup\r\n250-8BITMIME\r\n250 ENHANCEDSTATUSCODES"
		case "RCPT":
			if hangUp {
				say("421 4.3.2 Service shutting down, closing transmission channel")
				return
			}
			rcpt = strings.Trim(strings.TrimPrefix(strings.ToUpper(arg), "TO:"), "<>")
		case "DATA":
			if !say("354 End data with <CR><LF>.<CR><LF>") {
				return
			}
			if _, err := r.ReadDotLines(); err != nil {
				return
			}
			s.mu.Lock()
			s.took = append(s.took, strings.ToLower(rcpt))
			s.mu.Unlock()
		case "QUIT":
			say("221 2.0.0 Bye")
			return
		}
		if !say(reply) {
			return
		}
	}
}

// A connection that breaks in the middle of a batch fails the message it
// was carrying, which is charged an attempt and waits out its back-off.
// The messages behind it never reached the server: they are handed back
// due at once and uncharged, as a shutdown hands back the ones it cut off.
// Charged, they waited out the back-off with the one at fault, and behind
// a message that breaks the connection each time they were dropped after
// queueTries without ever being tried.
func TestQueueHandsBackMessagesABrokenConnectionNeverCarried(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		srv := startHangUpOnceSMTP(t)
		clk := clock.NewFake(time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC))
		q := NewQueue(db, clk, testBox(t), newSMTP(t, "smtp://"+srv.addr, nil), quietLog())
		q.Workers = 1 // one connection carries the batch
		const n = 4
		for i := range n {
			if err := q.Send(ctx, loginEmail(t, fmt.Sprintf("m%d@example.com", i))); err != nil {
				t.Fatal(err)
			}
		}
		if got, err := q.Deliver(ctx); got != n || err != nil {
			t.Fatalf("first round: claimed %d (%v), want %d", got, err, n)
		}
		if took := srv.received(); len(took) != 0 {
			t.Fatalf("the hung-up connection delivered %v", took)
		}
		var charged, attempts int
		if err := db.Read().QueryRowContext(ctx, `SELECT COUNT(*), COALESCE(SUM(attempts), 0) FROM mail_queue WHERE attempts > 0`).
			Scan(&charged, &attempts); err != nil {
			t.Fatal(err)
		}
		if charged != 1 || attempts != 1 {
			t.Fatalf("%d messages charged %d attempts for one broken connection, want the one it carried", charged, attempts)
		}
		// Same instant: only the messages never carried are due.
		if got, err := q.Deliver(ctx); got != n-1 || err != nil {
			t.Fatalf("second round: claimed %d (%v), want the %d never carried", got, err, n-1)
		}
		if took := srv.received(); len(took) != n-1 {
			t.Fatalf("server took %v, want %d messages", took, n-1)
		}
		clk.Advance(retryAfter(1))
		if got, err := q.Deliver(ctx); got != 1 || err != nil {
			t.Fatalf("after the back-off: claimed %d (%v), want the one that was in progress", got, err)
		}
		if left, err := q.Pending(ctx); left != 0 || err != nil {
			t.Fatalf("%d left queued (%v)", left, err)
		}
	})
}

// A queue with no workers set (the zero value of the exported field, or a
// negative one) still sends through one: with none, no message was handed
// to the mailer, every result stayed nil, and the whole claimed batch was
// deleted as delivered.
func TestQueueWithoutWorkersStillSends(t *testing.T) {
	ctx := context.Background()
	for _, workers := range []int{0, -1} {
		f := &flaky{}
		q := NewQueue(storetest.SQLite(t), clock.Real{}, testBox(t), f, quietLog())
		q.Workers = workers
		if err := q.Send(ctx, loginEmail(t, "ada@example.com")); err != nil {
			t.Fatal(err)
		}
		if n, err := q.Deliver(ctx); n != 1 || err != nil {
			t.Fatalf("workers %d: claimed %d (%v)", workers, n, err)
		}
		if len(f.sent) != 1 {
			t.Fatalf("workers %d: the mailer was handed %d messages, want 1", workers, len(f.sent))
		}
		if left, _ := q.Pending(ctx); left != 0 {
			t.Fatalf("workers %d: %d left", workers, left)
		}
	}
}

// A connection that dies while a message's data is being answered fails
// that message as tried (the server may have taken it), and only the ones
// after it as never attempted; the ones before it were delivered.
func TestSMTPBrokenMidBatchChargesOnlyTheMessageInProgress(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				r := textproto.NewReader(bufio.NewReader(c))
				say := func(line string) { _, _ = c.Write([]byte(line + "\r\n")) }
				say("220 dies ESMTP")
				messages := 0
				for {
					line, err := r.ReadLine()
					if err != nil {
						return
					}
					switch verb, _, _ := strings.Cut(line, " "); strings.ToUpper(verb) {
					case "EHLO":
						say("250-dies\r\n250 8BITMIME")
					case "DATA":
						say("354 go ahead")
						if _, err := r.ReadDotLines(); err != nil {
							return
						}
						if messages++; messages == 2 {
							return // no reply: the connection dies
						}
						say("250 2.0.0 Ok: queued")
					case "QUIT":
						say("221 Bye")
						return
					default:
						say("250 Ok")
					}
				}
			}()
		}
	}()
	s := newSMTP(t, "smtp://"+ln.Addr().String(), nil)
	errs := s.SendAll(context.Background(), []Email{loginEmail(t, "a@example.com"), loginEmail(t, "b@example.com"),
		loginEmail(t, "c@example.com"), loginEmail(t, "d@example.com")})
	if errs[0] != nil {
		t.Fatalf("first message: %v", errs[0])
	}
	if errs[1] == nil || errors.Is(errs[1], ErrNotAttempted) {
		t.Fatalf("the message in progress: %v, want a failure that counts", errs[1])
	}
	for _, err := range errs[2:] {
		if !errors.Is(err, ErrNotAttempted) {
			t.Fatalf("a message after the break: %v, want ErrNotAttempted", err)
		}
	}
}
