// Package emailaddr validates and normalises email addresses with the
// spec's rule, so the server and the widget accept exactly the same inputs.
package emailaddr

import (
	"regexp"
	"strings"

	"github.com/latchkey/latchkey/internal/apierr"
)

// The spec's rule: a local part of letters, digits and
// !#$%&'*+/=?^_`{|}~.- ; dot-separated domain labels; a top-level part of
// at least two letters.
var pattern = regexp.MustCompile("^[A-Za-z0-9!#$%&'*+/=?^_`{|}~.-]+@(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\\.)+[A-Za-z]{2,}$")

// Normalize trims and lower-cases addr and returns invalid_email when it
// does not match the rule. Lower-casing the whole address is deliberate:
// treating Bob@x and bob@x as two members invites account confusion.
func Normalize(addr string) (string, error) {
	a := strings.ToLower(strings.TrimSpace(addr))
	if len(a) > 254 || !pattern.MatchString(a) {
		return "", apierr.New(apierr.InvalidEmail)
	}
	return a, nil
}

// Domain returns the part after the @ of a normalised address.
func Domain(addr string) string {
	_, d, _ := strings.Cut(addr, "@")
	return d
}
