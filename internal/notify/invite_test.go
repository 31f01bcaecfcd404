package notify_test

import (
	"strings"
	"testing"
	"time"

	"github.com/latchkey/latchkey/internal/notify"
)

func TestInviteTemplate(t *testing.T) {
	t.Parallel()
	link := "https://app.example.com/invite?token=abc&stytch_token_type=multi_tenant_magic_links"
	d := notify.InviteData{LinkData: notify.LinkData{ProjectName: "Acme & Co", OrganizationName: evilOrg, URL: link, ExpiresIn: 7 * 24 * time.Hour},
		InviterName: "Grace\r\nBcc: x@evil.test", InviterEmail: "grace@example.com"}
	e, err := notify.MagicLinkInviteEmail("ada@example.com", d)
	if err != nil {
		t.Fatal(err)
	}
	if e.Subject != "You are invited to join "+evilOrg {
		t.Errorf("Subject = %q", e.Subject)
	}
	if !hasLine(e.Text, link) || !strings.Contains(e.Text, "This link expires in 7 days.") {
		t.Errorf("text body lacks the link or expiry:\n%s", e.Text)
	}
	// The inviter's name is collapsed to one line and comes after the link.
	inviter := "Grace Bcc: x@evil.test (grace@example.com) invited you to join " + evilOrg + "."
	if i, j := strings.Index(e.Text, link), strings.Index(e.Text, inviter); j < 0 || i > j {
		t.Errorf("text body: link at %d, inviter line at %d:\n%s", i, j, e.Text)
	}
	if strings.Contains(e.HTML, "<script") || !strings.Contains(e.HTML, "Accept invitation") ||
		!strings.Contains(e.HTML, "Grace Bcc: x@evil.test (grace@example.com) invited you to &lt;script&gt;") {
		t.Errorf("HTML body:\n%s", e.HTML)
	}

	// Backend invites without an inviter still read well.
	d.InviterName, d.InviterEmail = "", ""
	if e, err = notify.MagicLinkInviteEmail("ada@example.com", d); err != nil || !strings.Contains(e.Text, "You are invited to join "+evilOrg+".") {
		t.Errorf("no inviter (%v):\n%s", err, e.Text)
	}
	if _, err := notify.MagicLinkInviteEmail("ada@example.com", notify.InviteData{LinkData: notify.LinkData{ProjectName: "P",
		URL: "javascript:alert(1)", ExpiresIn: time.Hour}}); err == nil {
		t.Error("javascript: link accepted")
	}
}
