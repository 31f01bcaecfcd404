package notify

import (
	"bufio"
	"cmp"
	"context"
	"errors"
	"net"
	"net/textproto"
	"strings"
	"testing"
	"time"

	"github.com/latchkey/latchkey/internal/clock"
	"github.com/latchkey/latchkey/internal/store/storetest"
)

// scriptedSMTP is a loopback SMTP server that answers RCPT and the end of
// DATA with the replies it is given (accepting when empty), as a real
// server that refuses for its own reasons does.
type scriptedSMTP struct {
	addr string
	rcpt string
	data string
}

func startScriptedSMTP(t *testing.T, rcpt, data string) *scriptedSMTP {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	s := &scriptedSMTP{addr: ln.Addr().String(), rcpt: rcpt, data: data}
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

func (s *scriptedSMTP) serve(c net.Conn) {
	defer c.Close()
	r := textproto.NewReader(bufio.NewReader(c))
	say := func(line string) bool { _, err := c.Write([]byte(line + "\r\n")); return err == nil }
	or := func(reply, ok string) string {
		if reply != "" {
			return reply
		}
		return ok
	}
	if !say("220 scripted ESMTP") {
		return
	}
	for {
		line, err := r.ReadLine()
		if err != nil {
			return
		}
		verb := strings.ToUpper(strings.SplitN(line, " ", 2)[0])
		var reply string
		switch verb {
		case "EHLO":
			reply = "250-scripted\r\n250-8BITMIME\r\n250 ENHANCEDSTATUSCODES"
		case "HELO", "MAIL", "RSET", "NOOP":
			reply = "250 2.0.0 Ok"
		case "RCPT":
			reply = or(s.rcpt, "250 2.1.5 Ok")
		case "DATA":
			if !say("354 End data with <CR><LF>.<CR><LF>") {
				return
			}
			if _, err := r.ReadDotLines(); err != nil {
				return
			}
			reply = or(s.data, "250 2.0.0 Ok: queued")
		case "QUIT":
			say("221 2.0.0 Bye")
			return
		default:
			reply = "502 5.5.1 Command not implemented"
		}
		if !say(reply) {
			return
		}
	}
}

// A refusal at RCPT or after DATA drops the message only when its
// enhanced status code blames the message or its mailbox; a relay or
// policy refusal (5.7.x), one without an enhanced code, or one about our
// sender (5.1.7, 5.1.8, or the unspecific 5.1.0 quoting our envelope
// sender) is the server's or the configuration's, and is retried. The
// words of the text do not decide: a recipient's refusal that happens to
// say "sender" (here the recipient's own address) is still dropped.
func TestSMTPRefusalsThatAreNotTheMessagesOwnAreRetried(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		rcpt, data string
		drop       bool
		to         string // ada@example.com when empty
	}{
		{rcpt: "554 5.7.1 <ada@example.com>: Relay access denied"},
		{rcpt: "550 5.7.0 Mail relay denied"},
		{rcpt: "530 5.7.0 Authentication required"},
		{rcpt: "550 Relay not permitted"},
		{rcpt: "550 5.1.8 <no-reply@latchkey.test>: Sender address rejected: Domain not found"},
		{rcpt: "550 5.1.0 <no-reply@latchkey.test>: Sender address rejected: User unknown"},
		{rcpt: "550 5.2.2 <ada@example.com>: mailbox full"},
		{rcpt: "550 4.1.1 class does not match the reply"},
		{data: "554 5.7.1 Message rejected as spam"},
		{data: "550 5.3.0 Other mail system problem"},
		{data: "554 Transaction failed"},
		{rcpt: "550 5.1.1 <ada@example.com>: Recipient address rejected: User unknown", drop: true},
		{rcpt: "550 5.1.0 Requested action not taken: mailbox unavailable", drop: true},
		{rcpt: "550 5.2.1 mailbox disabled", drop: true},
		{rcpt: "556 5.1.10 Recipient address has null MX", drop: true},
		{data: "552 5.3.4 Message size exceeds fixed limit", drop: true},
		{data: "554 5.6.0 Message content rejected", drop: true},
		{rcpt: "550 5.1.1 <sender@example.com>: Recipient address rejected: User unknown", drop: true, to: "sender@example.com"},
		{rcpt: "550 5.1.0 <sender@example.com>: Recipient address rejected: User unknown", drop: true, to: "sender@example.com"},
		{rcpt: "550 5.1.10 Sender's domain is fine, the recipient's has a null MX", drop: true},
		{data: "550 5.1.1 Recipient unknown (sender notified)", drop: true},
		{rcpt: "553 5.1.7 <no-reply@latchkey.test>: bad address syntax"},
		{rcpt: "550 5.1.0 <No-Reply@Latchkey.test>: Address rejected: User unknown in local recipient table"},
	} {
		srv := startScriptedSMTP(t, tc.rcpt, tc.data)
		s := newSMTP(t, "smtp://"+srv.addr, nil)
		to := cmp.Or(tc.to, "ada@example.com")
		err := s.Send(context.Background(), loginEmail(t, to))
		reply := tc.rcpt + tc.data
		if err == nil || !strings.Contains(err.Error(), reply[:3]) {
			t.Errorf("%q: %v, want the refusal", reply, err)
			continue
		}
		if errors.Is(err, ErrUndeliverable) != tc.drop {
			t.Errorf("%q: undeliverable = %v, want %v (%v)", reply, !tc.drop, tc.drop, err)
		}
	}
}

// The audit's case: a server refusing every RCPT as relay denied (one bad
// credential) must leave the queued messages queued, not delete them all.
func TestQueueKeepsMailARelayRefuses(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	srv := startScriptedSMTP(t, "554 5.7.1 <m@example.com>: Relay access denied", "")
	q := NewQueue(storetest.SQLite(t), clock.Real{}, testBox(t), newSMTP(t, "smtp://"+srv.addr, nil), quietLog())
	for _, to := range []string{"a@example.com", "b@example.com", "c@example.com"} {
		if err := q.Send(ctx, loginEmail(t, to)); err != nil {
			t.Fatal(err)
		}
	}
	if n, _ := q.Deliver(ctx); n != 3 {
		t.Fatalf("delivered a batch of %d, want 3", n)
	}
	if left, err := q.Pending(ctx); left != 3 || err != nil {
		t.Fatalf("%d left queued (%v), want all 3 kept for a retry", left, err)
	}

	// A genuinely unknown mailbox is still dropped.
	gone := startScriptedSMTP(t, "550 5.1.1 <m@example.com>: Recipient address rejected: User unknown", "")
	q = NewQueue(storetest.SQLite(t), clock.Real{}, testBox(t), newSMTP(t, "smtp://"+gone.addr, nil), quietLog())
	if err := q.Send(ctx, loginEmail(t, "nobody@example.com")); err != nil {
		t.Fatal(err)
	}
	if n, err := q.Deliver(ctx); n != 1 || err != nil {
		t.Fatalf("deliver: %d %v", n, err)
	}
	if left, err := q.Pending(ctx); left != 0 || err != nil {
		t.Fatalf("%d left queued (%v), want the unknown mailbox's message dropped", left, err)
	}
}

// A server's refusal may quote the message it refuses (a content filter
// naming the link it blocked, a spam score over the code): the error,
// which the queue logs and stores, says the refusal without the link, its
// token or the code. Also when the quoted reply breaks the connection.
func TestSMTPRefusalDoesNotQuoteTheMessagesSecrets(t *testing.T) {
	t.Parallel()
	otp, err := EmailOTPEmail("ada@example.com", CodeData{ProjectName: "Acme", Code: "482913", ExpiresIn: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	link := "https://app.example.com/authenticate?token=tok_123&type=magic_links"
	for _, tc := range []struct {
		m      Email
		data   string
		secret []string
	}{
		{loginEmail(t, "ada@example.com"), "554 5.7.1 Message rejected: " + link + " is listed in a URIBL",
			[]string{"tok_123", link}},
		{loginEmail(t, "ada@example.com"), "550 5.6.0 Content rejected: token=tok_123 looks like phishing",
			[]string{"tok_123"}},
		{otp, "554 5.7.1 Spam score 9.1 for text: Your code is 482913.", []string{"482913"}},
	} {
		srv := startScriptedSMTP(t, "", tc.data)
		s := newSMTP(t, "smtp://"+srv.addr, nil)
		err := s.Send(context.Background(), tc.m)
		if err == nil || !strings.Contains(err.Error(), tc.data[:3]) || !strings.Contains(err.Error(), tc.data[4:9]) {
			t.Errorf("%q: %v, want the refusal", tc.data, err)
			continue
		}
		for _, secret := range tc.secret {
			if strings.Contains(err.Error(), secret) {
				t.Errorf("refusal %q: the error quotes the message's secret %q: %v", tc.data, secret, err)
			}
		}
	}
}
