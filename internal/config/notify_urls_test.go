package config

import (
	"strings"
	"testing"

	"github.com/latchkey/latchkey/internal/notify"
)

// Validate runs before notify.NewSMTP (app.New), so it must judge
// LATCHKEY_SMTP_URL exactly as NewSMTP does: a password pasted with an
// unescaped '/', '?' or '#' is accepted by both, a URL NewSMTP refuses is
// refused by Validate too, and the reason is NewSMTP's, never the password.
func TestValidateJudgesSMTPURLAsNewSMTPDoes(t *testing.T) {
	t.Parallel()
	const from = "a@example.com"
	for _, u := range []string{
		"smtp://user:pa/ss@smtp.example.com:587",
		"smtp://user:pa#ss@smtp.example.com:587",
		"smtps://user:p?ss@smtp.example.com",
		"smtp://user:p%40ss@smtp.example.com",
		"smtp://127.0.0.1:1025",
	} {
		if _, err := notify.NewSMTP(u, from); err != nil {
			t.Fatalf("NewSMTP(%q): %v", u, err)
		}
		c := Defaults()
		c.SMTPURL = u
		if err := c.Validate(); err != nil {
			t.Errorf("Validate refuses an SMTP URL NewSMTP accepts (%q): %v", u, err)
		}
	}
	for u, why := range map[string]string{
		"smtp://user:hunter2/x@mail.example.com?tls=none": "in clear",
		"smtp://user:hunter2/x@mail.example.com:99999":    "invalid port",
		"smtp://user:hunter2/x@mail.example.com/inbox":    "unexpected path",
		"mailto://user:hunter2/x@mail.example.com":        "unsupported scheme",
		"smtp://:hunter2/x@mail.example.com":              "without a user name",
	} {
		if _, err := notify.NewSMTP(u, from); err == nil {
			t.Fatalf("NewSMTP(%q) accepted", u)
		}
		c := Defaults()
		c.SMTPURL = u
		err := c.Validate()
		switch {
		case err == nil:
			t.Errorf("Validate accepts an SMTP URL NewSMTP refuses (%q)", u)
		case !strings.Contains(err.Error(), "LATCHKEY_SMTP_URL") || !strings.Contains(err.Error(), why):
			t.Errorf("Validate(%q) = %v, want LATCHKEY_SMTP_URL and %q", u, err, why)
		case strings.Contains(err.Error(), "hunter2"):
			t.Errorf("Validate(%q) error shows the password: %v", u, err)
		}
	}
}

// Every SMS request carries the gateway's account SID and auth token as
// HTTP Basic, so LATCHKEY_SMS_URL must be https unless the gateway is on
// this machine (a local relay, or a test's gateway on 127.0.0.1).
func TestValidateRefusesSMSGatewayOverHTTPToRemoteHost(t *testing.T) {
	t.Parallel()
	sms := func(u string) Config {
		c := Defaults()
		c.SMSURL, c.SMSAccountSID, c.SMSAuthToken, c.SMSFrom = u, "AC123", "tok-secret", "+15005550006"
		return c
	}
	for _, u := range []string{"http://remote-host", "http://api.twilio.com:80/", "HTTP://10.0.0.5:8080",
		"http://127.0.0.1.example.com"} {
		err := sms(u).Validate()
		if err == nil || !strings.Contains(err.Error(), "LATCHKEY_SMS_URL") || !strings.Contains(err.Error(), "https") {
			t.Errorf("LATCHKEY_SMS_URL=%s: Validate = %v, want a refusal asking for https", u, err)
		} else if strings.Contains(err.Error(), "tok-secret") {
			t.Errorf("LATCHKEY_SMS_URL=%s: the error shows the auth token: %v", u, err)
		}
	}
	for _, u := range []string{"https://api.twilio.com", "https://gateway.example.com:8443/", "http://127.0.0.1:38211",
		"http://localhost:8080", "http://[::1]:9000"} {
		if err := sms(u).Validate(); err != nil {
			t.Errorf("LATCHKEY_SMS_URL=%s refused: %v", u, err)
		}
	}
}

// The sender address and the account SID are checked by notify.NewSMTP and
// NewTwilio, which only serve reaches (after migrating); Validate, which
// every command runs first, must refuse what they refuse, or `migrate`
// reports success on a configuration serve then rejects.
func TestValidateJudgesSenderAndAccountSIDAsTheSendersDo(t *testing.T) {
	t.Parallel()
	for _, from := range []string{"not an address", "Latchkey <no-reply@>", ""} {
		if _, err := notify.NewSMTP("smtp://127.0.0.1:1025", from); err == nil {
			t.Fatalf("NewSMTP accepted the sender %q", from)
		}
		c := Defaults()
		c.SMTPURL, c.EmailFrom = "smtp://127.0.0.1:1025", from
		if err := c.Validate(); err == nil || !strings.Contains(err.Error(), "LATCHKEY_EMAIL_FROM") {
			t.Errorf("Validate with LATCHKEY_EMAIL_FROM=%q: %v, want a refusal naming it", from, err)
		}
	}
	c := Defaults()
	c.SMTPURL, c.EmailFrom = "smtp://127.0.0.1:1025", "Acme <login@acme.example>"
	if err := c.Validate(); err != nil {
		t.Errorf("a good sender refused: %v", err)
	}
	for _, sid := range []string{"AC/../x", "AC 1", "AC?x", "AC%2F"} {
		if _, err := notify.NewTwilio("https://api.twilio.com", sid, "tok-secret", "+15005550006", nil); err == nil {
			t.Fatalf("NewTwilio accepted the SID %q", sid)
		}
		c := Defaults()
		c.SMSURL, c.SMSAccountSID, c.SMSAuthToken, c.SMSFrom = "https://api.twilio.com", sid, "tok-secret", "+15005550006"
		err := c.Validate()
		if err == nil || !strings.Contains(err.Error(), "LATCHKEY_SMS_ACCOUNT_SID") {
			t.Errorf("Validate with LATCHKEY_SMS_ACCOUNT_SID=%q: %v, want a refusal naming it", sid, err)
		} else if strings.Contains(err.Error(), "tok-secret") {
			t.Errorf("the error shows the auth token: %v", err)
		}
	}
}

// The breach service's answers decide whether a password is refused, so
// plain http is allowed only to a loopback host (a local mirror, tests).
func TestBreachAPIURLNeedsHTTPSOffLoopback(t *testing.T) {
	t.Parallel()
	for u, ok := range map[string]bool{
		"https://api.pwnedpasswords.com": true, "http://127.0.0.1:8089": true, "http://localhost:8089/range": true,
		"http://[::1]:8089": true, "off": true,
		"http://api.pwnedpasswords.com": false, "http://10.0.0.5:8089": false, "HTTP://mirror.example": false,
	} {
		c := Defaults()
		c.BreachAPIURL = u
		err := c.Validate()
		if ok && err != nil {
			t.Errorf("LATCHKEY_BREACH_API_URL=%s refused: %v", u, err)
		}
		if !ok && (err == nil || !strings.Contains(err.Error(), "LATCHKEY_BREACH_API_URL")) {
			t.Errorf("LATCHKEY_BREACH_API_URL=%s: Validate = %v, want a refusal naming it", u, err)
		}
	}
}
