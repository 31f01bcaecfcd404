package notify_test

import (
	"strings"
	"testing"
	"time"

	"github.com/latchkey/latchkey/internal/notify"
)

func TestPasswordTemplates(t *testing.T) {
	t.Parallel()
	link := "https://app.example.com/reset?stytch_token_type=multi_tenant_passwords&token=abc_DEF-123&stytch_redirect_type=reset_password"
	d := notify.LinkData{ProjectName: "Acme & Co", OrganizationName: "Evil\r\nBcc: x@y.test <b>", URL: link, ExpiresIn: 30 * time.Minute}
	for name, c := range map[string]struct {
		build   func(string, notify.LinkData) (notify.Email, error)
		subject string
	}{
		"reset": {notify.PasswordResetEmail, "Reset your password for Evil Bcc: x@y.test <b>"},
		"set":   {notify.PasswordSetEmail, "Verify your email to set a password for Evil Bcc: x@y.test <b>"},
	} {
		m, err := c.build("ada@example.com", d)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if m.Subject != c.subject || m.To != "ada@example.com" {
			t.Errorf("%s: subject %q to %q", name, m.Subject, m.To)
		}
		if !strings.Contains(m.Text, "\n"+link+"\n") || !strings.Contains(m.Text, "expires in 30 minutes") {
			t.Errorf("%s: text body lacks the link on its own line or the expiry:\n%s", name, m.Text)
		}
		if strings.Contains(m.HTML, "<b>") || !strings.Contains(m.HTML, "&amp;token=abc_DEF-123") {
			t.Errorf("%s: HTML body is not escaped or lacks the link", name)
		}
		if _, err := c.build("ada@example.com", notify.LinkData{ProjectName: "P", URL: "javascript:alert(1)", ExpiresIn: time.Minute}); err == nil {
			t.Errorf("%s: accepted a javascript: URL", name)
		}
	}
	m, err := notify.PasswordNoAccountEmail("eve@example.com", notify.NoticeData{ProjectName: "Acme", OrganizationName: "Globex"})
	if err != nil {
		t.Fatal(err)
	}
	if m.Subject != "Password reset request for Globex" || strings.Contains(m.Text, "http") || !strings.Contains(m.Text, "cannot sign in there") {
		t.Errorf("no-account notice: %q\n%s", m.Subject, m.Text)
	}
	if _, err := notify.PasswordNoAccountEmail("", notify.NoticeData{ProjectName: "Acme"}); err == nil {
		t.Error("no-account notice without a recipient")
	}
}
