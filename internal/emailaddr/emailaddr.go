// Package emailaddr validates and normalises email addresses with the
// spec's rule, so the server and the widget accept exactly the same inputs.
package emailaddr

import (
	"regexp"
	"slices"
	"strings"

	"github.com/latchkey/latchkey/internal/apierr"
)

// The spec's rule: a local part of letters, digits and
// !#$%&'*+/=?^_`{|}~.- ; dot-separated domain labels; a top-level part of
// at least two letters. The local part is RFC 5321's Dot-string (4.1.2):
// its dots separate runs of the other characters, so it neither starts
// nor ends with one nor has two in a row. Only a Quoted-string may, and
// quoted local parts are not accepted at all.
var pattern = regexp.MustCompile("^[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+(?:\\.[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+)*@(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\\.)+[A-Za-z]{2,}$")

// Normalize trims and lower-cases addr and returns invalid_email when it
// does not match the rule. Lower-casing the whole address is deliberate:
// treating Bob@x and bob@x as two members invites account confusion.
//
// The rule is checked before lower-casing, and the rule is ASCII only:
// Unicode lower-casing maps some non-ASCII letters onto ASCII ones (the
// Kelvin sign U+212A to k, the dotted capital I U+0130 to i and a
// combining dot), so checking afterwards would accept
// "\u212Aate@acme.test" as kate@acme.test, an address its owner never
// typed, and whose mail would go elsewhere than the one it was read as.
// Only ASCII letters are then lower-cased (asciiLower).
func Normalize(addr string) (string, error) {
	a := strings.TrimSpace(addr)
	if len(a) > 254 || !pattern.MatchString(a) {
		return "", apierr.New(apierr.InvalidEmail)
	}
	return asciiLower(a), nil
}

// Equal reports whether two addresses are the same one, ignoring ASCII
// case only, as Normalize folds them. strings.EqualFold would also match
// the Kelvin sign to k (Unicode simple folding): two strings that
// Normalize keeps apart, or refuses, must not compare equal.
func Equal(a, b string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := 0; i < len(a); i++ {
		if lowerByte(a[i]) != lowerByte(b[i]) {
			return false
		}
	}
	return true
}

// Fold is the case folding of stored addresses (Normalize's), for a
// value compared with them that is not checked against the rule, such as
// a search filter's: only ASCII letters are lower-cased, so a value in
// which Unicode lower-casing would make an ASCII letter (the Kelvin sign)
// matches no address.
func Fold(s string) string { return asciiLower(s) }

// asciiLower lower-cases the ASCII letters of s and leaves every other
// byte as it is.
func asciiLower(s string) string {
	b := []byte(s)
	for i, c := range b {
		b[i] = lowerByte(c)
	}
	return string(b)
}

func lowerByte(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + ('a' - 'A')
	}
	return c
}

// Domain returns the part after the @ of a normalised address.
func Domain(addr string) string {
	_, d, _ := strings.Cut(addr, "@")
	return d
}

// VerifiedClaim is the one rule for an email_verified claim, from an OIDC
// identity provider (SSO) or a customer's own token issuer (trusted auth):
// only true, or the string "true" that some providers send (Cognito), says
// verified. Any other value present (false, "false", null, anything
// unexpected) says not, since a check that refuses only a boolean false
// lets the string "false" through. An absent claim is no statement, and
// the issuer's email counts as verified, as it always has.
func VerifiedClaim(claims map[string]any) bool {
	v, ok := claims["email_verified"]
	return !ok || v == true || v == "true"
}

// dotlessDomains are providers that ignore the dots of a local part
// (a.da@gmail.com is ada@gmail.com).
var dotlessDomains = []string{"gmail.com", "googlemail.com"}

// Mailbox is the inbox a normalised address reaches, as far as the
// address alone tells: its subaddress ("+tag", RFC 5233) dropped and, at
// the providers that ignore them, the dots of its local part. It is a
// key for counting what one inbox receives (a spelling that anyone may
// vary for free must not count apart), never an address to send to or
// to identify a member by. A local part that is all tag is kept whole.
func Mailbox(addr string) string {
	at := strings.LastIndexByte(addr, '@')
	if at < 0 {
		return addr
	}
	local, domain := addr[:at], asciiLower(addr[at+1:])
	if plus := strings.IndexByte(local, '+'); plus > 0 {
		local = local[:plus]
	}
	if slices.Contains(dotlessDomains, strings.TrimSuffix(domain, ".")) {
		if dotless := strings.ReplaceAll(local, ".", ""); dotless != "" {
			local = dotless
		}
	}
	return asciiLower(local) + "@" + domain
}
