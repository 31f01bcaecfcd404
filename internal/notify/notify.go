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
)

// Email is one outbound message. Text is required because every client can
// show it and tests extract links from it; HTML is the rich alternative.
type Email struct {
	To      string
	Subject string
	Text    string
	HTML    string
}

// Mailer delivers an Email. Implementations must be safe for concurrent use.
type Mailer interface {
	Send(ctx context.Context, m Email) error
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

func (f fanout) Send(ctx context.Context, m Email) error {
	var errs []error
	for i, mailer := range f {
		if err := mailer.Send(ctx, m); err != nil {
			errs = append(errs, fmt.Errorf("notify: fanout: mailer %d: %w", i, err))
		}
	}
	return errors.Join(errs...)
}
