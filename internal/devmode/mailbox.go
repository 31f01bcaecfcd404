// Package devmode holds the features that exist only in dev mode: the dev
// mailbox page (captured email and SMS), the demo page and the demo seed.
// Nothing here is mounted by a production server.
package devmode

import (
	"context"
	_ "embed"
	"encoding/json"
	"html/template"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/latchkey/latchkey/internal/notify"
)

// Mailbox page and JSON limits: tests poll the JSON for their newest message,
// so a small default keeps polling cheap; the cap bounds one response.
const (
	mailboxDefaultLimit = 50
	mailboxMaxLimit     = 200
	mailboxPath         = "/dev/mailbox"
	mailboxJSONPath     = "/dev/mailbox/messages"
)

// MailboxSource lists captured messages, newest first; *notify.Outbox is one.
type MailboxSource interface {
	List(ctx context.Context, recipient string, limit int) ([]notify.Message, error)
}

//go:embed mailbox.html.tmpl
var mailboxHTML string

// Parsed on first use, like demoTemplate.
var mailboxTmpl = sync.OnceValue(func() *template.Template { return template.Must(template.New("mailbox").Parse(mailboxHTML)) })

// MailboxHandler serves GET /dev/mailbox (an HTML page for people) and
// GET /dev/mailbox/messages (JSON for browser tests), both filtered by an
// optional ?to= recipient. Mount it on both paths, and only in dev mode: the
// captured messages contain live login links and codes.
func MailboxHandler(src MailboxSource) http.Handler {
	return &mailbox{src: src}
}

type mailbox struct{ src MailboxSource }

func (h *mailbox) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	// Captured links are single-use secrets: no cache may keep them.
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	// No script at all; the page's own <style> only.
	w.Header().Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'; img-src data:; "+
		"form-action 'self'; frame-ancestors 'none'; base-uri 'none'")
	switch r.URL.Path {
	case mailboxPath, mailboxPath + "/":
		h.page(w, r)
	case mailboxJSONPath:
		h.json(w, r)
	default:
		http.NotFound(w, r)
	}
}

func (h *mailbox) page(w http.ResponseWriter, r *http.Request) {
	to := strings.TrimSpace(r.URL.Query().Get("to"))
	msgs, err := h.src.List(r.Context(), to, mailboxDefaultLimit)
	if err != nil {
		slog.ErrorContext(r.Context(), "dev mailbox: list", "err", err)
		http.Error(w, "could not read the dev outbox", http.StatusInternalServerError)
		return
	}
	data := pageData{To: to, Messages: make([]pageMessage, 0, len(msgs))}
	for _, m := range msgs {
		data.Messages = append(data.Messages, pageMessage{
			Channel:   m.Channel,
			Recipient: m.Recipient,
			Subject:   m.Subject,
			Time:      m.CreatedAt.UTC().Format("2006-01-02 15:04:05 UTC"),
			ISOTime:   m.CreatedAt.UTC().Format(time.RFC3339),
			Body:      splitLinks(m.Text, m.Links),
			Codes:     m.Codes,
		})
	}
	// The page is static apart from links: no script may run, and forms may
	// only submit here. Inline styles are the page's own.
	w.Header().Set("Content-Security-Policy",
		"default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'")
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	if err := mailboxTmpl().Execute(w, data); err != nil {
		slog.ErrorContext(r.Context(), "dev mailbox: render", "err", err)
	}
}

type pageData struct {
	To       string
	Messages []pageMessage
}

type pageMessage struct {
	Channel, Recipient, Subject, Time, ISOTime string
	Body                                       []segment
	Codes                                      []string
}

// segment is a run of body text; Link marks a run that is one of the
// message's http(s) links and is rendered as an anchor.
type segment struct {
	Text string
	Link bool
}

// splitLinks cuts text into plain runs and link runs. Only the links the
// outbox extracted (http and https) become anchors, so a javascript: or
// data: URL in a body stays inert text. At each position the longest link
// wins, so a link that is a prefix of another does not split it.
func splitLinks(text string, links []string) []segment {
	var out []segment
	for text != "" {
		at, best := -1, ""
		for _, l := range links {
			if l == "" {
				continue
			}
			i := strings.Index(text, l)
			if i >= 0 && (at < 0 || i < at || (i == at && len(l) > len(best))) {
				at, best = i, l
			}
		}
		if at < 0 {
			out = append(out, segment{Text: text})
			break
		}
		if at > 0 {
			out = append(out, segment{Text: text[:at]})
		}
		out = append(out, segment{Text: best, Link: isHTTP(best)})
		text = text[at+len(best):]
	}
	return out
}

func isHTTP(s string) bool {
	l := strings.ToLower(s)
	return strings.HasPrefix(l, "https://") || strings.HasPrefix(l, "http://")
}

// jsonMessage is the wire shape browser tests read. "to" is a list to match
// the shape of common mail-catcher APIs, though the outbox has one recipient.
type jsonMessage struct {
	ID        string   `json:"id"`
	Channel   string   `json:"channel"`
	To        []string `json:"to"`
	Subject   string   `json:"subject"`
	Text      string   `json:"text"`
	HTML      string   `json:"html"`
	Links     []string `json:"links"`
	Codes     []string `json:"codes"`
	CreatedAt string   `json:"created_at"`
}

func (h *mailbox) json(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	limit := mailboxDefaultLimit
	if s := q.Get("limit"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 {
			writeJSON(w, http.StatusBadRequest, map[string]string{"error": "limit must be a positive integer"})
			return
		}
		limit = min(n, mailboxMaxLimit)
	}
	msgs, err := h.src.List(r.Context(), strings.TrimSpace(q.Get("to")), limit)
	if err != nil {
		slog.ErrorContext(r.Context(), "dev mailbox: list", "err", err)
		writeJSON(w, http.StatusInternalServerError, map[string]string{"error": "could not read the dev outbox"})
		return
	}
	out := make([]jsonMessage, 0, len(msgs))
	for _, m := range msgs {
		out = append(out, jsonMessage{
			ID:        m.ID,
			Channel:   m.Channel,
			To:        []string{m.Recipient},
			Subject:   m.Subject,
			Text:      m.Text,
			HTML:      m.HTML,
			Links:     nonNil(m.Links),
			Codes:     nonNil(m.Codes),
			CreatedAt: m.CreatedAt.UTC().Format("2006-01-02T15:04:05.000Z07:00"),
		})
	}
	writeJSON(w, http.StatusOK, map[string]any{"messages": out})
}

// nonNil keeps JSON arrays as [] rather than null, so tests can index them.
func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}
