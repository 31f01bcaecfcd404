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
	if _, err := notify.PasswordNoAccountEmail("", notify.NoticeData{ProjectName: "Acme"}); err == nil {
		t.Error("no-account notice without a recipient")
	}
}

// The notices that go to any address someone typed (a reset or a login
// where the address cannot sign in) name the project only: an
// organization's name is whatever its creator chose, and naming it would
// relay that text to arbitrary inboxes. NoticeData has no field for it;
// the bodies say what happened and what to do, and carry no link.
func TestNoticesNameTheProjectOnly(t *testing.T) {
	t.Parallel()
	for name, c := range map[string]struct {
		build         func(string, notify.NoticeData) (notify.Email, error)
		subject, says string
	}{
		"no account": {notify.PasswordNoAccountEmail, "Password reset request for Acme & Co",
			"cannot sign in to that organization"},
		"no access": {notify.LoginNoAccessEmail, "Sign-in request for Acme & Co",
			"cannot sign in to that organization, so no sign-in code or link was sent"},
	} {
		m, err := c.build("eve@example.com", notify.NoticeData{ProjectID: "project-test-1", ProjectName: "Acme & Co\r\nBcc: x@y.test"})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if m.Subject != c.subject+" Bcc: x@y.test" || m.To != "eve@example.com" || m.Project != "project-test-1" {
			t.Errorf("%s: subject %q to %q project %q", name, m.Subject, m.To, m.Project)
		}
		if !strings.Contains(m.Text, c.says) || !strings.Contains(m.Text, "administrators") || strings.Contains(m.Text, "http") {
			t.Errorf("%s: text body:\n%s", name, m.Text)
		}
		if !strings.Contains(m.HTML, "Acme &amp; Co") {
			t.Errorf("%s: HTML body is not escaped or lacks the project", name)
		}
		if _, err := c.build("", notify.NoticeData{ProjectName: "Acme"}); err == nil {
			t.Errorf("%s: built without a recipient", name)
		}
		if _, err := c.build("eve@example.com", notify.NoticeData{}); err == nil {
			t.Errorf("%s: built without a project name", name)
		}
	}
}
