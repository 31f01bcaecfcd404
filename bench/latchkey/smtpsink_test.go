package main

import (
	"context"
	"testing"

	"github.com/latchkey/latchkey/internal/notify"
)

// The sink must understand what the outbox's real SMTP client sends: a
// batch over one connection, each code reaching the flow that waits for
// it, and a subject that needed encoding.
func TestSinkReceivesTheOutboxMailer(t *testing.T) {
	sink, err := startSink()
	if err != nil {
		t.Fatal(err)
	}
	defer sink.close()
	m, err := notify.NewSMTP("smtp://"+sink.addr(), "Bench <bench@bench.test>")
	if err != nil {
		t.Fatal(err)
	}
	// Before the sink closes, which waits for its connections: the mailer
	// keeps its connection for the next batch.
	defer m.Close()
	a, b := sink.expect("A@bench.test"), sink.expect("b@bench.test")
	errs := m.SendAll(context.Background(), []notify.Email{
		{To: "a@bench.test", Subject: "123456 is your Bench login code", Text: "Code: 123456"},
		{To: "b@bench.test", Subject: "654321 is your Bénch login code, and a long subject that the mailer may fold over lines", Text: "Code: 654321"},
	})
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	for to, want := range map[string]struct {
		ch   <-chan string
		code string
	}{"A@bench.test": {a, "123456"}, "b@bench.test": {b, "654321"}} {
		got, err := sink.code(to, want.ch)
		if err != nil || got != want.code {
			t.Errorf("%s: code %q, %v; want %q", to, got, err, want.code)
		}
	}
	if n, d := sink.received.Load(), sink.dials.Load(); n != 2 || d != 1 {
		t.Errorf("received %d messages over %d connections, want 2 over 1", n, d)
	}
}
