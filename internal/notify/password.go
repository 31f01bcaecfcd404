package notify

import (
	"fmt"
	"strings"
)

// Password emails, parsed once at package load like the others.
var (
	passwordResetTmpl     = mustTemplate("password_reset")
	passwordSetTmpl       = mustTemplate("password_set")
	passwordNoAccountTmpl = mustTemplate("password_no_account")
)

// PasswordResetEmail carries the link that lets a member with a password
// choose a new one.
func PasswordResetEmail(to string, d LinkData) (Email, error) {
	v, err := linkView(d)
	if err != nil {
		return Email{}, fmt.Errorf("notify: password reset email: %w", err)
	}
	v.Subject = "Reset your password for " + v.Org
	return render(passwordResetTmpl, to, v)
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
	v.Subject = "Verify your email to set a password for " + v.Org
	return render(passwordSetTmpl, to, v)
}

// NoticeData fills emails that carry no link.
type NoticeData struct {
	ProjectID        string // the Email's Project
	ProjectName      string
	OrganizationName string
}

// PasswordNoAccountEmail tells the owner of an address that a password
// reset was asked for where the address cannot sign in (not a member, and
// the organization does not let it join). Sending something keeps the
// reset endpoint's behaviour the same for members and strangers.
func PasswordNoAccountEmail(to string, d NoticeData) (Email, error) {
	v := view{Project: oneLine(d.ProjectName), Org: oneLine(d.OrganizationName), projectID: d.ProjectID}
	if v.Org == "" {
		v.Org = v.Project
	}
	if v.Project == "" {
		v.Project = v.Org
	}
	if v.Org == "" {
		return Email{}, fmt.Errorf("notify: no-account email: neither organization nor project name given")
	}
	v.Subject = "Password reset request for " + v.Org
	if strings.TrimSpace(to) == "" {
		return Email{}, fmt.Errorf("notify: no-account email: empty recipient")
	}
	return render(passwordNoAccountTmpl, to, v)
}
