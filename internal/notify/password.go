package notify

import (
	"fmt"
	"strings"

	"github.com/latchkey/latchkey/internal/locale"
)

// Password emails, parsed on first use like the others.
var (
	passwordResetTmpl     = mustTemplate("password_reset")
	passwordSetTmpl       = mustTemplate("password_set")
	passwordNoAccountTmpl = mustTemplate("password_no_account")
	loginNoAccessTmpl     = mustTemplate("login_no_access")
)

// PasswordResetEmail carries the link that lets a member with a password
// choose a new one.
func PasswordResetEmail(to string, d LinkData) (Email, error) {
	v, err := linkView(d)
	if err != nil {
		return Email{}, fmt.Errorf("notify: password reset email: %w", err)
	}
	return render(passwordResetTmpl, "password_reset.subject", to, v)
}

// PasswordSetEmail answers a reset asked for by an address that has no
// password yet: the link verifies the address first, then lets its owner
// choose a password. Only the inbox owner learns which of the two emails
// was sent, so the reset endpoint itself reveals nothing about membership.
func PasswordSetEmail(to string, d LinkData) (Email, error) {
	v, err := linkView(d)
	if err != nil {
		return Email{}, fmt.Errorf("notify: password set email: %w", err)
	}
	return render(passwordSetTmpl, "password_set.subject", to, v)
}

// NoticeData fills emails that carry no link. They go to any address
// someone typed, so they name only the project, whose name the operator
// chose: an organization's name is chosen by whoever created it, and a
// notice naming it would relay that text ("URGENT, call ...") from the
// server to arbitrary inboxes.
type NoticeData struct {
	ProjectID   string // the Email's Project
	ProjectName string
	Locale      locale.Tag // the zero Tag is English
}

// noticeView is the view of a notice to a nonempty recipient.
func noticeView(to string, d NoticeData) (view, error) {
	v := newView(d.ProjectName, d.Locale)
	v.projectID = d.ProjectID
	if v.Project == "" {
		return view{}, fmt.Errorf("no project name given")
	}
	if strings.TrimSpace(to) == "" {
		return view{}, fmt.Errorf("empty recipient")
	}
	return v, nil
}

// PasswordNoAccountEmail tells the owner of an address that a password
// reset was asked for where the address cannot sign in (not a member, and
// the organization does not let it join). Sending something keeps the
// reset endpoint's behaviour the same for members and strangers.
func PasswordNoAccountEmail(to string, d NoticeData) (Email, error) {
	v, err := noticeView(to, d)
	if err != nil {
		return Email{}, fmt.Errorf("notify: no-account email: %w", err)
	}
	return render(passwordNoAccountTmpl, "no_account.subject", to, v)
}

// LoginNoAccessEmail tells the owner of an address that a login email (a
// code or a link) was asked for in an organization where the address is
// a deleted member's: no login can follow, so it gets this instead, and
// the SDK face answers as it does for a stranger the organization admits.
func LoginNoAccessEmail(to string, d NoticeData) (Email, error) {
	v, err := noticeView(to, d)
	if err != nil {
		return Email{}, fmt.Errorf("notify: no-access email: %w", err)
	}
	return render(loginNoAccessTmpl, "no_access.subject", to, v)
}
