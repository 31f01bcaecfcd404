package apptest

import (
	"context"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
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
	t.Helper()
	e.addOutbox()
	for _, leak := range findLeaks(e.logs.String(), e.secrets.snapshot()) {
		t.Errorf("apptest: a secret reached the server log (secrets never reach a log): %s", leak)
	}
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
// duration or an id (containsWord), and so is an all-letter one (a test's
// dictionary password, "password", is in the path /passwords/...).
// Random tokens, which hold digits or symbols, match anywhere.
func findLeaks(log string, secrets map[string]string) []string {
	var out []string
	for v, field := range secrets {
		if len(v) < minSecretLen {
			continue
		}
		found := false
		if allDigits(v) || allLetters(v) {
			found = containsWord(log, v)
		} else {
			found = strings.Contains(log, v)
			if esc := url.QueryEscape(v); !found && esc != v {
				found = strings.Contains(log, esc)
			}
		}
		if found {
			out = append(out, fmt.Sprintf("field %q, value %s", field, mask(v)))
		}
	}
	slices.Sort(out)
	return out
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

// containsWord reports whether w occurs in s with no word character on
// either side: letters, digits, '_' and '-' (09:00:00.123456,
// 1.234567ms, member-test-123456ab-... and 2026-123456 are numbers of
// their own, not a code), and '.' unless it ends a sentence.
func containsWord(s, w string) bool {
	for i := 0; ; {
		j := strings.Index(s[i:], w)
		if j < 0 {
			return false
		}
		start, end := i+j, i+j+len(w)
		if !wordBefore(s[:start]) && !wordAfter(s[end:]) {
			return true
		}
		i = start + 1
	}
}

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
