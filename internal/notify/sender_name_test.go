package notify

import (
	"context"
	"net/http"
	"testing"
	"time"
)

// Every sender LATCHKEY_EMAIL_FROM accepts (config.Validate asks
// CheckEmailFrom) goes out as written: a display name that needs its
// quotes or backslashes escaped in the header, or RFC 2047 words, reaches
// the recipient as the same name. Formatted by hand into "name" <addr>,
// a name with a quote or a backslash arrived altered, or became a From
// line that does not parse: then every message failed (and was dropped
// after its retries) from a server that had started without a word.
func TestMailpitSenderNamesThatNeedEscaping(t *testing.T) {
	t.Parallel()
	mp := startMailpit(t)
	for _, tc := range []struct{ from, name string }{
		{`"The \"Best\" Shop" <no-reply@latchkey.test>`, `The "Best" Shop`},
		{`"Acme \"Login\"" <no-reply@latchkey.test>`, `Acme "Login"`},
		{`"O\"Hare Login" <no-reply@latchkey.test>`, `O"Hare Login`},
		{`"Acme\\Login" <no-reply@latchkey.test>`, `Acme\Login`},
		{`"Acme, Inc." <no-reply@latchkey.test>`, `Acme, Inc.`},
		{`Ácme Connexion <no-reply@latchkey.test>`, `Ácme Connexion`},
	} {
		if err := CheckEmailFrom(tc.from); err != nil {
			t.Fatalf("CheckEmailFrom(%s): %v", tc.from, err)
		}
		s, err := NewSMTP("smtp://"+mp.smtpAddr, tc.from)
		if err != nil {
			t.Fatalf("NewSMTP(%s): %v", tc.from, err)
		}
		t.Cleanup(func() { s.Close() })
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		err = s.Send(ctx, loginEmail(t, "ada@example.com"))
		cancel()
		if err != nil {
			t.Errorf("sender %s: %v", tc.from, err)
			continue
		}
		sum := mp.onlyMessage(t)
		if sum.From.Name != tc.name || sum.From.Address != "no-reply@latchkey.test" {
			t.Errorf("sender %s arrived as %+v, want name %q", tc.from, sum.From, tc.name)
		}
		mp.deleteAll(t)
	}
}

// deleteAll empties mailpit's mailbox.
func (mp mailpit) deleteAll(t *testing.T) {
	t.Helper()
	req, err := http.NewRequest(http.MethodDelete, mp.api+"/api/v1/messages", nil)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("DELETE messages: %v", err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("DELETE messages: %d", resp.StatusCode)
	}
}
