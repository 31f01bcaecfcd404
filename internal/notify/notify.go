// Package notify delivers outbound email and SMS: a real SMTP mailer and a
// Twilio-compatible SMS client for production, a database-backed outbox
// that dev mode and tests read back (channels "email" and "sms"), the
// message templates of every login flow, and Fanout/FanoutSMS to send
// through several senders at once.
package notify

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/latchkey/latchkey/internal/store"
)

// Email is one outbound message. Text is required because every client can
// show it and tests extract links from it; HTML is the rich alternative.
// Project is the project the message is sent for, which the
// per-recipient cap counts per (Capped); the message builders copy it
// from their data's ProjectID. Delivery does not need it, so the queue
// does not store it. ValidFor is how long the link or code the message
// carries stays good from when it is built (the builders copy their
// data's ExpiresIn; zero for a message with neither): the queue keeps
// retrying the message that long, and no longer.
type Email struct {
	To       string
	Subject  string
	Text     string
	HTML     string
	Project  string        `json:"-"`
	ValidFor time.Duration `json:"-"`
}

// Mailer delivers an Email. Implementations must be safe for concurrent use.
type Mailer interface {
	Send(ctx context.Context, m Email) error
}

// ErrUndeliverable marks a message that no retry can deliver: the mail
// server refused it permanently, with a reply to a recipient or its data
// that blames the message or its mailbox (see SMTP's ownRefusal), or it
// cannot be written as mail at all. The queue drops such
// a message at its first failure instead of retrying it for half an hour.
var ErrUndeliverable = errors.New("undeliverable")

// ErrNotAttempted marks a message of a batch that the mail server never
// saw: the connection failed while carrying an earlier one. Nothing is
// known of the message itself, so the queue hands it back due at once
// without counting an attempt (the message in progress is the one
// charged), as it does the messages a shutdown cut off.
var ErrNotAttempted = errors.New("not attempted: the connection failed before this message")

// BatchMailer is a Mailer that can deliver several messages in one go
// (SMTP: over one connection). errs[i] is ms[i]'s result.
type BatchMailer interface {
	Mailer
	SendAll(ctx context.Context, ms []Email) (errs []error)
}

// SendAll delivers ms through m: at once when m is a BatchMailer, one by
// one otherwise.
func SendAll(ctx context.Context, m Mailer, ms []Email) []error {
	if b, ok := m.(BatchMailer); ok {
		return b.SendAll(ctx, ms)
	}
	errs := make([]error, len(ms))
	for i, e := range ms {
		errs[i] = m.Send(ctx, e)
	}
	return errs
}

// TxMailer is a Mailer that only writes to the database (the durable
// queue, the dev outbox). SendIn writes through the caller's transaction
// q, so the message exists exactly when the transaction's other writes do
// (a login code and its email: nothing half-written either way), and on
// SQLite no second write waits for the writer the transaction holds.
type TxMailer interface {
	Mailer
	SendIn(ctx context.Context, q store.Querier, m Email) error
}

// AsTx returns m as a TxMailer when every message it sends only goes to
// the database; a mailer that talks to a server (SMTP) must not run inside
// a transaction, and ok is false.
func AsTx(m Mailer) (TxMailer, bool) {
	if f, isFanout := m.(fanout); isFanout {
		for _, each := range f {
			if _, ok := AsTx(each); !ok {
				return nil, false
			}
		}
		return f, true
	}
	t, ok := m.(TxMailer)
	return t, ok
}

// Fanout returns a Mailer that sends every message through each of ms in
// order. A failure of one mailer does not skip the others (dev mode both
// delivers through SMTP and captures to the outbox, and the capture must
// still happen when the SMTP server is down); all failures are joined.
func Fanout(ms ...Mailer) Mailer {
	kept := make([]Mailer, 0, len(ms))
	for _, m := range ms {
		if m != nil {
			kept = append(kept, m)
		}
	}
	return fanout(kept)
}

type fanout []Mailer

func (f fanout) Send(ctx context.Context, m Email) error { return f.SendIn(ctx, nil, m) }

// SendIn passes q on to every mailer (AsTx only offers a fanout whose
// mailers all take it); with a nil q each sends on its own.
func (f fanout) SendIn(ctx context.Context, q store.Querier, m Email) error {
	var errs []error
	for i, mailer := range f {
		var err error
		if t, ok := mailer.(TxMailer); ok && q != nil {
			err = t.SendIn(ctx, q, m)
		} else {
			err = mailer.Send(ctx, m)
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("notify: fanout: mailer %d: %w", i, err))
		}
	}
	return errors.Join(errs...)
}
