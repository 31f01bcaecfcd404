package notify

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/latchkey/latchkey/internal/clock"
	"github.com/latchkey/latchkey/internal/ids"
	"github.com/latchkey/latchkey/internal/store"
)

// ChannelEmail is the dev_outbox channel of captured email.
const ChannelEmail = "email"

// DefaultListLimit is how many messages List returns for a non-positive limit.
const DefaultListLimit = 50

// Outbox is a Mailer that captures messages in the dev_outbox table instead
// of delivering them, so dev mode and browser tests can read them back. It is
// never wired in production: the table holds live login links in clear.
type Outbox struct {
	db    *store.DB
	clock clock.Clock

	mu   sync.Mutex
	last int64 // newest created_at written by this Outbox, in ms
}

// NewOutbox returns an Outbox writing to db and stamping messages with c.
func NewOutbox(db *store.DB, c clock.Clock) *Outbox {
	return &Outbox{db: db, clock: c}
}

// Message is a captured message as read back from the outbox, with the links
// and one-time codes a person or a test would look for already picked out.
type Message struct {
	ID        string
	Channel   string
	Recipient string
	Subject   string
	Text      string
	HTML      string
	CreatedAt time.Time
	Links     []string // http(s) URLs of the text body, in order, deduplicated
	Codes     []string // standalone 6-digit numbers of the subject and text
}

// Send stores m in the outbox.
func (o *Outbox) Send(ctx context.Context, m Email) error { return o.SendIn(ctx, o.db, m) }

// SendIn stores m through q, which may be a transaction.
func (o *Outbox) SendIn(ctx context.Context, q store.Querier, m Email) error {
	if strings.TrimSpace(m.To) == "" {
		return errors.New("notify: outbox: empty recipient")
	}
	_, err := q.ExecContext(ctx,
		`INSERT INTO dev_outbox (message_id, channel, recipient, subject, text_body, html_body, created_at)
		 VALUES ($1, $2, $3, $4, $5, $6, $7)`,
		ids.New("message", ids.Test), ChannelEmail, strings.TrimSpace(m.To), m.Subject, m.Text, m.HTML, o.stamp())
	if err != nil {
		return fmt.Errorf("notify: outbox: insert: %w", err)
	}
	return nil
}

// stamp returns the creation time in ms, nudged to be strictly after the
// previous message of this Outbox. Readers order by created_at alone (the
// table has no sequence column), and a link and a code sent within the same
// millisecond must still list newest first.
func (o *Outbox) stamp() int64 {
	o.mu.Lock()
	defer o.mu.Unlock()
	ms := store.Millis(o.clock.Now())
	if ms <= o.last {
		ms = o.last + 1
	}
	o.last = ms
	return ms
}

// List returns captured messages, newest first, at most limit of them
// (DefaultListLimit when limit <= 0). A non-empty recipient keeps only the
// messages to that address, compared case-insensitively because mail
// providers treat the case of addresses as insignificant.
func (o *Outbox) List(ctx context.Context, recipient string, limit int) ([]Message, error) {
	if limit <= 0 {
		limit = DefaultListLimit
	}
	recipient = strings.TrimSpace(recipient)
	const cols = `SELECT message_id, channel, recipient, subject, text_body, html_body, created_at FROM dev_outbox`
	q, args := cols+` ORDER BY created_at DESC, message_id DESC LIMIT $1`, []any{limit}
	if recipient != "" {
		q = cols + ` WHERE lower(recipient) = lower($1) ORDER BY created_at DESC, message_id DESC LIMIT $2`
		args = []any{recipient, limit}
	}
	rows, err := o.db.Read().QueryContext(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("notify: outbox: list: %w", store.MapError(err))
	}
	defer rows.Close()
	var out []Message
	for rows.Next() {
		var m Message
		var created int64
		if err := rows.Scan(&m.ID, &m.Channel, &m.Recipient, &m.Subject, &m.Text, &m.HTML, &created); err != nil {
			return nil, fmt.Errorf("notify: outbox: scan: %w", err)
		}
		m.CreatedAt = store.Time(created)
		m.Links = extractLinks(m.Text)
		m.Codes = extractCodes(m.Subject + "\n" + m.Text)
		out = append(out, m)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("notify: outbox: list: %w", err)
	}
	return out, nil
}

var (
	// linkRE stops at whitespace and at characters that cannot appear
	// unescaped in a URL but commonly surround one in prose.
	linkRE = regexp.MustCompile(`https?://[^\s<>"'` + "`" + `]+`)
	codeRE = regexp.MustCompile(`\b[0-9]{6}\b`)
)

// extractLinks returns the http(s) URLs in text, in order of appearance and
// without duplicates. Trailing sentence punctuation is not part of a link.
func extractLinks(text string) []string {
	links := []string{}
	seen := map[string]bool{}
	for _, l := range linkRE.FindAllString(text, -1) {
		l = trimLink(l)
		if !seen[l] && strings.Contains(l, "://") && len(l) > len("https://") {
			seen[l] = true
			links = append(links, l)
		}
	}
	return links
}

func trimLink(l string) string {
	for len(l) > 0 {
		last := l[len(l)-1]
		switch {
		case strings.IndexByte(".,;:!?", last) >= 0:
		case last == ')' && strings.Count(l, "(") < strings.Count(l, ")"):
		case last == ']' && strings.Count(l, "[") < strings.Count(l, "]"):
		default:
			return l
		}
		l = l[:len(l)-1]
	}
	return l
}

// extractCodes returns the standalone 6-digit numbers in text (one-time
// codes), in order and without duplicates. Digits inside URLs do not count,
// so a numeric token in a link is not mistaken for a code.
func extractCodes(text string) []string {
	text = linkRE.ReplaceAllString(text, " ")
	codes := []string{}
	seen := map[string]bool{}
	for _, c := range codeRE.FindAllString(text, -1) {
		if !seen[c] {
			seen[c] = true
			codes = append(codes, c)
		}
	}
	return codes
}
