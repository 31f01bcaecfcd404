package notify_test

import (
	"strings"
	"testing"
	"time"

	"github.com/latchkey/latchkey/internal/notify"
)

func TestEmailUpdateTemplates(t *testing.T) {
	t.Parallel()
	link := "https://app.example.com/login?stytch_token_type=multi_tenant_magic_links&token=abc_DEF-123"
	m, err := notify.EmailUpdateLinkEmail("new@example.com", notify.LinkData{ProjectName: "Acme & Co",
		OrganizationName: "Evil\r\nBcc: x@y.test <b>", URL: link, ExpiresIn: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	if m.To != "new@example.com" || m.Subject != "Confirm your new email address for Evil Bcc: x@y.test <b>" {
		t.Errorf("link email: subject %q to %q", m.Subject, m.To)
	}
	if !strings.Contains(m.Text, "\n"+link+"\n") || !strings.Contains(m.Text, "expires in 60 minutes") {
		t.Errorf("link email text lacks the link on its own line or the expiry:\n%s", m.Text)
	}
	if strings.Contains(m.HTML, "<b>") || !strings.Contains(m.HTML, "&amp;token=abc_DEF-123") {
		t.Error("link email HTML is not escaped or lacks the link")
	}
	if _, err := notify.EmailUpdateLinkEmail("new@example.com", notify.LinkData{ProjectName: "P", URL: "javascript:alert(1)",
		ExpiresIn: time.Minute}); err == nil {
		t.Error("link email accepted a javascript: URL")
	}

	c, err := notify.EmailUpdateCodeEmail("new@example.com", notify.CodeData{ProjectName: "Acme", Code: "123456", ExpiresIn: 10 * time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(c.Subject, "123456 ") || !strings.Contains(c.Text, "\n123456\n") || !strings.Contains(c.HTML, "123456") {
		t.Errorf("code email: %q\n%s", c.Subject, c.Text)
	}
	if _, err := notify.EmailUpdateCodeEmail("new@example.com", notify.CodeData{ProjectName: "Acme", Code: "12 34", ExpiresIn: time.Minute}); err == nil {
		t.Error("code email accepted a malformed code")
	}
}
