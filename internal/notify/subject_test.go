package notify

import (
	"bytes"
	"mime"
	"net/mail"
	"strings"
	"testing"
	"time"
)

// An organization named with RFC 2047 encoded-words reaches the Subject
// as the literal text: a mail client decoding the raw header reads the
// name as it is stored, not "PayPal Security" or a right-to-left
// override. The raw header's lines stay within 78 characters.
func TestSMTPSubjectWithEncodedWordsDecodesToTheLiteralText(t *testing.T) {
	t.Parallel()
	s := newSMTP(t, "smtp://127.0.0.1:2525", nil)
	for _, org := range []string{
		"=?UTF-8?B?UGF5UGFsIFNlY3VyaXR5?=",
		"=?UTF-8?Q?=E2=80=AEmoc.evil?=",
		"Acme =?iso-8859-1?q?caf=E9?= Zürich Ünïcödé Ärger " + strings.Repeat("ßtraße =?x?", 8),
	} {
		e, err := MagicLinkLoginEmail("ada@example.com", LinkData{ProjectName: "Acme", OrganizationName: org,
			URL: "https://app.example.com/authenticate?token=tok_123", ExpiresIn: time.Hour})
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(e.Subject, org) {
			t.Fatalf("the rendered subject %q lost the name %q before sending", e.Subject, org)
		}
		msg, err := s.message(e)
		if err != nil {
			t.Fatal(err)
		}
		var raw bytes.Buffer
		if _, err := msg.WriteTo(&raw); err != nil {
			t.Fatal(err)
		}
		head, _, _ := strings.Cut(raw.String(), "\r\n\r\n")
		for _, line := range strings.Split(head, "\r\n") {
			if len(line) > 78 {
				t.Errorf("header line of %d characters: %q", len(line), line)
			}
		}
		parsed, err := mail.ReadMessage(&raw)
		if err != nil {
			t.Fatal(err)
		}
		got, err := new(mime.WordDecoder).DecodeHeader(parsed.Header.Get("Subject"))
		if err != nil || got != e.Subject {
			t.Errorf("Subject decodes to %q (%v), want the literal %q", got, err, e.Subject)
		}
	}
}

// A subject without "=?" is left to go-mail as before: plain ASCII is
// sent as it is.
func TestSMTPPlainSubjectIsSentAsItIs(t *testing.T) {
	t.Parallel()
	s := newSMTP(t, "smtp://127.0.0.1:2525", nil)
	msg, err := s.message(Email{To: "ada@example.com", Subject: "Your login link for Acme", Text: "x"})
	if err != nil {
		t.Fatal(err)
	}
	var raw bytes.Buffer
	if _, err := msg.WriteTo(&raw); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(raw.String(), "\r\nSubject: Your login link for Acme\r\n") {
		t.Fatalf("plain subject not sent as it is:\n%s", raw.String())
	}
}
