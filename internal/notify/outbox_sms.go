package notify

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/latchkey/latchkey/internal/ids"
	"github.com/latchkey/latchkey/internal/store"
)

// ChannelSMS is the dev_outbox channel of captured text messages.
const ChannelSMS = "sms"

// SendSMS stores m in the outbox with channel "sms", so the dev mailbox
// shows text messages (and their codes) next to email.
func (o *Outbox) SendSMS(ctx context.Context, m SMS) error {
	return o.SendSMSIn(ctx, o.db, m)
}

// SendSMSIn stores m through q, which may be a transaction.
func (o *Outbox) SendSMSIn(ctx context.Context, q store.Querier, m SMS) error {
	to := strings.TrimSpace(m.To)
	if to == "" {
		return errors.New("notify: outbox: empty sms recipient")
	}
	_, err := q.ExecContext(ctx,
		`INSERT INTO dev_outbox (message_id, channel, recipient, subject, text_body, html_body, created_at)
		 VALUES ($1, $2, $3, $4, $5, $6, $7)`,
		ids.New("message", ids.Test), ChannelSMS, to, "", m.Body, "", o.stamp())
	if err != nil {
		return fmt.Errorf("notify: outbox: insert sms: %w", store.MapError(err))
	}
	return nil
}
