package apptest

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/latchkey/latchkey/internal/audit"
)

// outboxScanLimit bounds the captured messages read at a test's end: more
// than any test sends.
const outboxScanLimit = 10000

// checkLogs fails the test when a secret the Env saw occurs in the
// server's log. It runs once, at the test's end (t.Cleanup), after the
// outbox's mail and SMS are added: a test that never read its mail still
// proves the codes and links in it stayed out of the log.
func (e *Env) checkLogs() {
	t := e.T
	e.addOutbox()
	secrets := e.secrets.snapshot()
	for _, leak := range findLeaks(e.logs.String(), secrets) {
		t.Errorf("apptest: a secret reached the server log (secrets never reach a log): %s", leak)
	}
	for _, leak := range findLeaks(e.auditText(), secrets) {
		t.Errorf("apptest: a secret reached the audit log (secrets never reach a log): %s", leak)
	}
}

// auditText is the audit log of the Env's projects, an event a line.
func (e *Env) auditText() string {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	for _, id := range e.secrets.projectIDs() {
		for before := ""; ; {
			evs, err := e.App.Audit.List(context.Background(), audit.Filter{ProjectID: id, Before: before, Limit: audit.MaxLimit})
			if err != nil {
				e.T.Logf("apptest: audit log not read for the log check: %v", err)
				break
			}
			for _, ev := range evs {
				_ = enc.Encode(ev)
			}
			if len(evs) < audit.MaxLimit {
				break
			}
			before = evs[len(evs)-1].ID
		}
	}
	return b.String()
}

// addOutbox records the codes and the link tokens of every captured
// message. The read may fail if the test closed the database itself; the
// messages are then left unchecked, said in the test's output. A server
// configured to deliver (SMTP, an SMS gateway) has no outbox: its test's
// own local server sees the messages.
func (e *Env) addOutbox() {
	if e.App.Outbox == nil {
		return
	}
	msgs, err := e.App.Outbox.List(context.Background(), "", outboxScanLimit)
	if err != nil {
		e.T.Logf("apptest: outbox not read for the log check: %v", err)
		return
	}
	for _, m := range msgs {
		for _, c := range m.Codes {
			e.secrets.add(m.Channel+" code", c)
		}
		for _, l := range m.Links {
			e.secrets.addURL(l)
		}
	}
}

// findLeaks returns, sorted, one line per secret of secrets (value to
// field) found in log: the field and a masked prefix, never the value.
// A value is looked for as is and URL-escaped (a logged URL); an all-digit
// one (a one-time code) only as a whole word, not inside a timestamp, a
// duration or an id (wordBefore, wordAfter), and so is an all-letter one (a test's
// dictionary password, "password", is in the path /passwords/...).
// Random tokens, which hold digits or symbols, match anywhere.
//
// One pass over the log, whatever the number of secrets: every secret is
// filed under its first minSecretLen bytes, and each position of the log
// looks its next minSecretLen bytes up (a bitset first, then the map). A
// strings.Contains per secret took seconds on a long test's 8 MB log.
func findLeaks(log string, secrets map[string]string) []string {
	idx := newNeedleIndex(secrets)
	found := map[string]string{} // secret -> field
	if len(idx.byPrefix) > 0 {
		var k uint64
		for i := 0; i < len(log); i++ {
			k = (k<<8 | uint64(log[i])) & prefixMask
			if i < minSecretLen-1 || !idx.maybe(k) {
				continue
			}
			at := i - (minSecretLen - 1)
			for _, n := range idx.byPrefix[k] {
				if _, done := found[n.secret]; done || !strings.HasPrefix(log[at:], n.text) {
					continue
				}
				if n.word && (wordBefore(log[:at]) || wordAfter(log[at+len(n.text):])) {
					continue
				}
				found[n.secret] = secrets[n.secret]
			}
		}
	}
	out := make([]string, 0, len(found))
	for v, field := range found {
		out = append(out, fmt.Sprintf("field %q, value %s", field, mask(v)))
	}
	slices.Sort(out)
	return out
}

// prefixMask keeps the minSecretLen bytes a needle is filed under.
const prefixMask = 1<<(8*minSecretLen) - 1

// needle is one spelling (text) of a secret.
type needle struct {
	secret, text string
	word         bool // must stand as a whole word (wordBefore, wordAfter)
}

// needleIndex files needles under their first minSecretLen bytes, with a
// bitset of those prefixes' hashes that most log positions fail at once.
type needleIndex struct {
	byPrefix map[uint64][]needle
	bits     []uint64
}

const needleBits = 1 << 20

func newNeedleIndex(secrets map[string]string) *needleIndex {
	idx := &needleIndex{byPrefix: map[uint64][]needle{}, bits: make([]uint64, needleBits/64)}
	add := func(n needle) {
		var k uint64
		for i := range minSecretLen {
			k = k<<8 | uint64(n.text[i])
		}
		idx.byPrefix[k] = append(idx.byPrefix[k], n)
		h := bitOf(k)
		idx.bits[h/64] |= 1 << (h % 64)
	}
	for v := range secrets {
		if len(v) < minSecretLen {
			continue
		}
		word := allDigits(v) || allLetters(v)
		add(needle{secret: v, text: v, word: word})
		if esc := url.QueryEscape(v); esc != v {
			add(needle{secret: v, text: esc, word: word})
		}
	}
	return idx
}

func bitOf(k uint64) uint64 { return (k * 0x9E3779B97F4A7C15) >> (64 - 20) }

// maybe reports whether a needle may start with the bytes of k.
func (x *needleIndex) maybe(k uint64) bool {
	h := bitOf(k)
	return x.bits[h/64]&(1<<(h%64)) != 0
}

// mask shows enough of v to find it in a test's own data: a third of it,
// at most 4 characters.
func mask(v string) string {
	n := min(4, len(v)/3)
	return fmt.Sprintf("%q… (%d chars)", v[:n], len(v))
}

func allLetters(s string) bool {
	for _, r := range s {
		if !unicode.IsLetter(r) {
			return false
		}
	}
	return s != ""
}

func allDigits(s string) bool {
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return s != ""
}

// A whole-word needle has no word character on either side (wordBefore,
// wordAfter): letters, digits, '_' and '-' (09:00:00.123456, 1.234567ms,
// member-test-123456ab-... and 2026-123456 are numbers of their own, not a
// code), and '.' unless it ends a sentence.
func wordBefore(s string) bool {
	r, n := utf8.DecodeLastRuneInString(s)
	return n > 0 && (r == '.' || isWordRune(r))
}

func wordAfter(s string) bool {
	r, n := utf8.DecodeRuneInString(s)
	if n == 0 {
		return false
	}
	if r == '.' {
		next, _ := utf8.DecodeRuneInString(s[n:])
		return isWordRune(next)
	}
	return isWordRune(r)
}

func isWordRune(r rune) bool {
	return r == '_' || r == '-' || unicode.IsLetter(r) || unicode.IsDigit(r)
}
