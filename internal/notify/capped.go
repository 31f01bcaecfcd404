package notify

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/latchkey/latchkey/internal/apierr"
	"github.com/latchkey/latchkey/internal/emailaddr"
	"github.com/latchkey/latchkey/internal/ratelimit"
	"github.com/latchkey/latchkey/internal/store"
)

// SendPerRecipient caps the email one address receives from one project,
// whatever sends it: login and signup links and codes, discovery, invites,
// password resets, email updates. Each flow has its own limit per
// recipient, but keyed per organization (and per flow), so an address
// could be sent ten mails in ten minutes by every organization whose JIT
// policy admits anyone, and as many again by each other flow. This one
// rule sits under all of them (Capped) and stays well above what a real
// person asks for in an hour.
//
// It binds the SDK face only (SDKOnly): what a customer's server sends
// with the project secret (ratelimit.OnBehalf) is neither refused nor
// counted. That server is trusted and limits its own users; counting its
// sends would waste the allowance, and refusing them would let a stranger
// with the public token silence an address for the customer's own
// backend logins and invites.
var SendPerRecipient = ratelimit.Rule{Name: "email_send_recipient", Limit: 30, Window: time.Hour, SDKOnly: true}

// errNoProject is a message whose builder was not given its project: the
// cap could not count it, so it is not sent.
var errNoProject = errors.New("notify: capped: the message names no project")

// Capped returns m with SendPerRecipient applied to every message it
// sends, counted per project (Email.Project) and recipient. It is the one
// place every email passes (app.buildMailer wraps the whole mailer), so a
// new flow cannot skip the cap; the face is read from ctx, which the
// backend's authentication marks (ratelimit.OnBehalf), so a new flow
// cannot get it wrong either. A refusal is too_many_requests, which the
// senders answer as it is (DeliveryError). When m writes only to the
// database (AsTx), so does the result, and SendIn counts in the caller's
// transaction: a send that rolls back counts nothing.
func Capped(m Mailer, l *ratelimit.Limiter) Mailer {
	c := capped{next: m, limiter: l}
	if t, ok := AsTx(m); ok {
		return cappedTx{capped: c, tx: t}
	}
	return c
}

type capped struct {
	next    Mailer
	limiter *ratelimit.Limiter
}

func (c capped) Send(ctx context.Context, m Email) error {
	key, err := recipientKey(m)
	if err != nil {
		return err
	}
	if err := c.limiter.Allow(ctx, SendPerRecipient, key); err != nil {
		return err
	}
	return c.next.Send(ctx, m)
}

type cappedTx struct {
	capped
	tx TxMailer
}

func (c cappedTx) SendIn(ctx context.Context, q store.Querier, m Email) error {
	key, err := recipientKey(m)
	if err != nil {
		return err
	}
	if err := c.limiter.AllowIn(ctx, q, SendPerRecipient, key); err != nil {
		return err
	}
	return c.tx.SendIn(ctx, q, m)
}

// recipientKey is m's key under SendPerRecipient: the inbox the address
// reaches (emailaddr.Mailbox), because a "+tag" or a Gmail dot costs a
// stranger nothing and would otherwise buy another thirty emails an hour
// into the same inbox. Addresses arrive normalised (emailaddr.Normalize);
// Mailbox's lower-casing only keeps a differently spelt one from counting
// apart.
func recipientKey(m Email) (string, error) {
	if m.Project == "" {
		return "", errNoProject
	}
	return m.Project + "|" + emailaddr.Mailbox(strings.TrimSpace(m.To)), nil
}

// DeliveryError is the public error of a send that failed: a public
// error the mailer gave (SendPerRecipient's too_many_requests) as it is,
// anything else email_delivery_failed.
func DeliveryError(err error) error {
	var public *apierr.Error
	if errors.As(err, &public) {
		return public
	}
	return apierr.Wrap(apierr.EmailDeliveryFailed, err)
}
