package notify

import (
	"errors"
	"fmt"
	"strings"
	"unicode"
)

// Email-update emails go to the NEW address of a member's email change;
// using the link or code proves that address and completes the change.
var (
	emailUpdateLinkTmpl = mustTemplate("email_update_link")
	emailUpdateCodeTmpl = mustTemplate("email_update_code")
)

// EmailUpdateLinkEmail carries the link that confirms a new address.
func EmailUpdateLinkEmail(to string, d LinkData) (Email, error) {
	v, err := linkView(d)
	if err != nil {
		return Email{}, fmt.Errorf("notify: email update link: %w", err)
	}
	return render(emailUpdateLinkTmpl, "email_update_link.subject", to, v)
}

// EmailUpdateCodeEmail carries the code that confirms a new address.
func EmailUpdateCodeEmail(to string, d CodeData) (Email, error) {
	v, err := baseView(d.ProjectName, d.OrganizationName, d.ExpiresIn, d.Locale)
	if err != nil {
		return Email{}, fmt.Errorf("notify: email update code: %w", err)
	}
	v.Code, v.projectID = strings.TrimSpace(d.Code), d.ProjectID
	if v.Code == "" || strings.ContainsFunc(v.Code, unicode.IsSpace) {
		return Email{}, errors.New("notify: email update code: empty or malformed code")
	}
	return render(emailUpdateCodeTmpl, "email_update_code.subject", to, v)
}
