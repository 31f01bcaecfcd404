package notify

import (
	"strconv"
	"strings"
	"testing"
)

// FuzzSMTPURL feeds LATCHKEY_SMTP_URL's parser arbitrary strings: it never
// panics, never puts the password in an error or in the mailer's String,
// and what it accepts keeps the TLS rule: clear text only with an explicit
// tls=none, opportunistic STARTTLS only to a loopback host, and smtps://
// always TLS.
func FuzzSMTPURL(f *testing.F) {
	for _, s := range []string{"smtp://user:p%40ss@mail.example.com:587", "smtps://mail.example.com", "smtp://localhost:1025",
		"smtp://127.0.0.1:25?tls=opportunistic", "smtp://u:secretpw@mail.example.com?tls=none", "smtp://mail.example.com?tls=none",
		"smtp://u:pa/ss?w#rd@host:0", "SMTP://[::1]:2525?tls=required&tls=none", "http://x", "smtp://:pw@host", "smtp://h/path",
		"smtp://u:%zz@host", "smtps://host:99999"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		s, err := parseSMTPURL(raw)
		pass := smtpPassword(raw)
		if err != nil {
			// The rest of the URL may hold the same characters, also once quoted in the
			// error (a NUL before "0000" prints as \x000000).
			// The parser's own words do not count either: "ssword" is in
			// "password given without a user name".
			rest := afterUserinfo(raw)
			msg := strings.ReplaceAll(err.Error(), "password", "")
			if len(pass) >= 6 && strings.Contains(msg, pass) && !strings.Contains(rest, pass) &&
				!strings.Contains(strconv.Quote(rest), pass) {
				t.Fatalf("parseSMTPURL(%q): the error shows the password: %v", raw, err)
			}
			return
		}
		if s.port < 1 || s.port > 65535 || s.host == "" {
			t.Fatalf("parseSMTPURL(%q) accepted host %q port %d", raw, s.host, s.port)
		}
		switch {
		case s.implicitTLS && s.tls != tlsRequired:
			t.Fatalf("parseSMTPURL(%q): smtps with tls=%s", raw, s.tls)
		case s.tls == tlsNone && !strings.Contains(raw, "tls=none"):
			t.Fatalf("parseSMTPURL(%q): clear text without tls=none", raw)
		case s.tls == tlsOpportunistic && !isLoopback(s.host):
			t.Fatalf("parseSMTPURL(%q): opportunistic STARTTLS to remote host %q", raw, s.host)
		case s.tls == tlsNone && s.pass != "" && !isLoopback(s.host):
			t.Fatalf("parseSMTPURL(%q): a password in clear to %q", raw, s.host)
		}
		if len(s.pass) >= 6 && strings.Contains(s.String(), s.pass) && !strings.Contains(s.host+s.user, s.pass) {
			t.Fatalf("String() of %q shows the password: %s", raw, s.String())
		}
	})
}

// smtpPassword is the raw password part of an SMTP URL, as the parser cuts it.
func smtpPassword(raw string) string {
	_, rest, ok := strings.Cut(strings.TrimSpace(raw), "://")
	at := strings.LastIndexByte(rest, '@')
	if !ok || at < 0 {
		return ""
	}
	_, pass, _ := strings.Cut(rest[:at], ":")
	return pass
}

func afterUserinfo(raw string) string {
	_, rest, _ := strings.Cut(raw, "://")
	return rest[strings.LastIndexByte(rest, '@')+1:]
}
