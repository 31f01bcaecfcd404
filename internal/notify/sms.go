package notify

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/latchkey/latchkey/internal/store"
)

// SMS is one outbound text message. To is an E.164 number (callers
// normalise it with package phone); Body is plain text.
type SMS struct {
	To   string
	Body string
}

// SMSSender delivers an SMS. Implementations must be safe for concurrent use.
type SMSSender interface {
	SendSMS(ctx context.Context, m SMS) error
}

// TxSMSSender is implemented by senders that write to the database (the dev
// outbox). Inside a transaction they must write through it: on SQLite the
// one writer connection is held by the transaction, so a second write
// outside it would wait for a connection that never comes free.
type TxSMSSender interface {
	SendSMSIn(ctx context.Context, q store.Querier, m SMS) error
}

// SendSMSIn sends m through s, inside the transaction q when s writes to
// the database and q is not nil.
func SendSMSIn(ctx context.Context, q store.Querier, s SMSSender, m SMS) error {
	if tx, ok := s.(TxSMSSender); ok && q != nil {
		return tx.SendSMSIn(ctx, q, m)
	}
	return s.SendSMS(ctx, m)
}

// Errors a gateway reports about the recipient rather than about itself;
// callers turn them into the catalogue's phone-number errors. Test with
// errors.Is: gateway errors wrap them.
var (
	ErrSMSInvalidNumber     = errors.New("notify: sms: the recipient is not a valid mobile number")
	ErrSMSCountryNotAllowed = errors.New("notify: sms: sending to the recipient's country is not enabled")
	ErrSMSUnsubscribed      = errors.New("notify: sms: the recipient has unsubscribed")
)

// FanoutSMS returns an SMSSender that sends through each of ss in order; as
// with Fanout, one failure does not skip the others and all are joined.
func FanoutSMS(ss ...SMSSender) SMSSender {
	kept := make([]SMSSender, 0, len(ss))
	for _, s := range ss {
		if s != nil {
			kept = append(kept, s)
		}
	}
	return smsFanout(kept)
}

type smsFanout []SMSSender

func (f smsFanout) SendSMS(ctx context.Context, m SMS) error { return f.SendSMSIn(ctx, nil, m) }

// SendSMSIn passes q on to the senders that write to the database.
func (f smsFanout) SendSMSIn(ctx context.Context, q store.Querier, m SMS) error {
	var errs []error
	for i, s := range f {
		if err := SendSMSIn(ctx, q, s, m); err != nil {
			errs = append(errs, fmt.Errorf("notify: fanout: sms sender %d: %w", i, err))
		}
	}
	return errors.Join(errs...)
}

// SMSCodeText builds the text of an MFA code message, in d.Locale's
// language. The code leads so a lock-screen preview shows it; names are reduced to one line because they
// are customer-chosen.
func SMSCodeText(to string, d CodeData) (SMS, error) {
	v, err := baseView(d.ProjectName, d.OrganizationName, d.ExpiresIn, d.Locale)
	if err != nil {
		return SMS{}, fmt.Errorf("notify: sms code: %w", err)
	}
	code := strings.TrimSpace(d.Code)
	if code == "" || strings.ContainsAny(code, " \t\r\n") {
		return SMS{}, errors.New("notify: sms code: empty or malformed code")
	}
	if strings.TrimSpace(to) == "" {
		return SMS{}, errors.New("notify: sms code: empty recipient")
	}
	v.Code = code
	body, err := say(v, "sms.code")
	if err != nil {
		return SMS{}, fmt.Errorf("notify: sms code: %w", err)
	}
	return SMS{To: strings.TrimSpace(to), Body: body}, nil
}

// smsTimeout bounds one gateway request. An SMS may be sent inside a login
// transaction, so a hanging gateway must not hold it for long.
const smsTimeout = 10 * time.Second
