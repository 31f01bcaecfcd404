package notify_test

import (
	"context"
	"errors"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/latchkey/latchkey/internal/clock"
	"github.com/latchkey/latchkey/internal/notify"
	"github.com/latchkey/latchkey/internal/store/storetest"
)

// closedPort returns a loopback address nothing listens on, so a dial there
// is refused at once.
func closedPort(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return addr
}

func TestFanout(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	refused, err := notify.NewSMTP("smtp://"+closedPort(t), "no-reply@latchkey.test")
	if err != nil {
		t.Fatal(err)
	}
	closedDB := storetest.SQLite(t)
	closedDB.Close()
	broken := notify.NewOutbox(closedDB, clock.Real{})
	good := notify.NewOutbox(storetest.SQLite(t), clock.NewFake(t0))

	m := notify.Email{To: "ada@example.com", Subject: "hi", Text: "hello"}
	err = notify.Fanout(refused, good, nil, broken).Send(ctx, m)
	if err == nil {
		t.Fatal("Fanout with two failing mailers: no error")
	}
	var joined interface{ Unwrap() []error }
	if !errors.As(err, &joined) || len(joined.Unwrap()) != 2 {
		t.Fatalf("want 2 joined errors, got %v", err)
	}
	for _, want := range []string{"mailer 0: notify: smtp:", "mailer 2: notify: outbox:"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
	got, lerr := good.List(ctx, "", 10)
	if lerr != nil || len(got) != 1 || got[0].Subject != "hi" {
		t.Errorf("the working mailer after a failing one did not get the message: %+v, %v", got, lerr)
	}

	if err := notify.Fanout(good).Send(ctx, m); err != nil {
		t.Errorf("Fanout of one working mailer: %v", err)
	}
	if err := notify.Fanout().Send(ctx, m); err != nil {
		t.Errorf("empty Fanout: %v", err)
	}
}

func TestNewSMTP(t *testing.T) {
	t.Parallel()
	const from = "Latchkey <no-reply@latchkey.test>"
	good := map[string]string{
		// STARTTLS is required by default, except to a loopback relay.
		"smtp://mail.example.com":                                                "smtp://mail.example.com:587?tls=required",
		"SMTP://mail.example.com/":                                               "smtp://mail.example.com:587?tls=required",
		"smtps://mail.example.com":                                               "smtps://mail.example.com:465",
		"smtps://mail.example.com:2465?tls=required":                             "smtps://mail.example.com:2465",
		"smtp://mail.example.com?tls=none":                                       "smtp://mail.example.com:587?tls=none",
		"smtp://apikey@mail.example.com:25?tls=none":                             "smtp://apikey@mail.example.com:25?tls=none",
		"smtp://[::1]:1025":                                                      "smtp://[::1]:1025?tls=opportunistic",
		"smtp://127.0.0.1:1025?tls=opportunistic":                                "smtp://127.0.0.1:1025?tls=opportunistic",
		"smtp://u:hunter2pw@localhost:1025?tls=none":                             "smtp://u@localhost:1025?tls=none",
		"smtp://localhost:1025?tls=required":                                     "smtp://localhost:1025?tls=required",
		"smtp://apikey@mail.example.com:25":                                      "smtp://apikey@mail.example.com:25?tls=required",
		"smtp://user%40example.com:hunter2pw@mail.example.com:2525?tls=required": "smtp://user%40example.com@mail.example.com:2525?tls=required",
		// Unescaped '/', '?', '#' and '@' in a password are forgiven: the last '@' ends the user info.
		"smtp://u:hunter2pw/?#@x@mail.example.com": "smtp://u@mail.example.com:587?tls=required",
		"  smtp://u:hunter2pw@mail.example.com  ":  "smtp://u@mail.example.com:587?tls=required",
	}
	for raw, want := range good {
		s, err := notify.NewSMTP(raw, from)
		if err != nil {
			t.Errorf("NewSMTP(%q): %v", raw, err)
			continue
		}
		if got := s.String(); got != want {
			t.Errorf("NewSMTP(%q).String() = %q, want %q", raw, got, want)
		}
		if err := notify.CheckSMTPURL(raw); err != nil {
			t.Errorf("CheckSMTPURL(%q) refuses what NewSMTP accepts: %v", raw, err)
		}
	}

	bad := []string{
		"",
		"mail.example.com:587",
		"u:hunter2pw@mail.example.com",
		"u:hunter2pw@host://x",
		"http://u:hunter2pw@mail.example.com",
		"smtp://u:hunter2pw@mail.example.com:99999",
		"smtp://u:hunter2pw@mail.example.com:0",
		"smtp://u:hunter2pw@mail.example.com:abc",
		"smtp://u:hunter2pw@:25",
		"smtp://u:hunter2pw@",
		"smtp://u:hunter2pw@mail.example.com/inbox",
		"smtp://u:hunter2pw@mail.example.com#frag",
		"smtp://u:hunter2pw@mail.example.com?tls=maybe",
		"smtp://u:hunter2pw@mail.example.com?tls=required&tls=required",
		"smtp://u:hunter2pw@mail.example.com?starttls=1",
		"smtp://u:hunter2pw@mail.example.com?tls=%zz",
		"smtp://u:hunter2pw%zz@mail.example.com",
		"smtp://u%zz:hunter2pw@mail.example.com",
		"smtp://:hunter2pw@mail.example.com",
		"smtp://u:hunter2pw@mail example.com",
		// Clear text to a remote host only when asked for, and never with a password.
		"smtp://mail.example.com?tls=opportunistic",
		"smtp://u:hunter2pw@mail.example.com?tls=none",
		"smtp://u:hunter2pw@127.0.0.2.example.com?tls=none",
	}
	for _, raw := range bad {
		s, err := notify.NewSMTP(raw, from)
		if err == nil {
			t.Errorf("NewSMTP(%q) = %v, want an error", raw, s)
			continue
		}
		if strings.Contains(err.Error(), "hunter2") {
			t.Errorf("NewSMTP(%q) error reveals the password: %v", raw, err)
		}
		if !strings.HasPrefix(err.Error(), "notify: smtp: LATCHKEY_SMTP_URL: ") {
			t.Errorf("NewSMTP(%q) error lacks context: %v", raw, err)
		}
		// config.Validate reports CheckSMTPURL's reason: it must be NewSMTP's.
		if cerr := notify.CheckSMTPURL(raw); cerr == nil || "notify: smtp: "+cerr.Error() != err.Error() {
			t.Errorf("CheckSMTPURL(%q) = %v, NewSMTP says %v", raw, cerr, err)
		}
	}

	for _, f := range []string{"", "not an address", "a@b.example\r\nBcc: x@y.example", "<>"} {
		if _, err := notify.NewSMTP("smtp://mail.example.com", f); err == nil {
			t.Errorf("from %q: no error", f)
		}
	}
}

// A server that accepts the connection and then says nothing: Send must give
// up when the caller's context ends, not after go-mail's own timeouts.
func TestSMTPContextDeadline(t *testing.T) {
	t.Parallel()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			t.Cleanup(func() { c.Close() })
		}
	}()
	s, err := notify.NewSMTP("smtp://u:hunter2pw@"+l.Addr().String(), "no-reply@latchkey.test")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	start := time.Now()
	err = s.Send(ctx, notify.Email{To: "ada@example.com", Subject: "s", Text: "t"})
	if elapsed := time.Since(start); elapsed > 5*time.Second {
		t.Errorf("Send took %v after a 300ms deadline", elapsed)
	}
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Send = %v, want a deadline error", err)
	}

	// A context that is already over never dials.
	cancel()
	if err := s.Send(ctx, notify.Email{To: "ada@example.com", Subject: "s", Text: "t"}); !errors.Is(err, context.DeadlineExceeded) && !errors.Is(err, context.Canceled) {
		t.Errorf("Send on an ended context = %v", err)
	}
}

func TestSMTPRejectsBadMessages(t *testing.T) {
	t.Parallel()
	s, err := notify.NewSMTP("smtp://"+closedPort(t), "no-reply@latchkey.test")
	if err != nil {
		t.Fatal(err)
	}
	for name, m := range map[string]notify.Email{
		"bad recipient":       {To: "not an address", Subject: "s", Text: "t"},
		"header injection":    {To: "ada@example.com", Subject: "s\r\nBcc: eve@example.com", Text: "t"},
		"empty text":          {To: "ada@example.com", Subject: "s", HTML: "<p>t</p>"},
		"recipient injection": {To: "ada@example.com\r\nBcc: eve@example.com", Subject: "s", Text: "t"},
	} {
		err := s.Send(context.Background(), m)
		if err == nil || strings.Contains(err.Error(), "connect") || strings.Contains(err.Error(), "refused") {
			t.Errorf("%s: Send = %v, want a validation error before dialing", name, err)
		}
	}
}
