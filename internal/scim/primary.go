package scim

import (
	"fmt"
	"slices"
)

// countPrimary is how many of vs isPrimary marks.
func countPrimary[T any](vs []T, isPrimary func(T) bool) int {
	n := 0
	for _, v := range vs {
		if isPrimary(v) {
			n++
		}
	}
	return n
}

func multiPrimary(m multi) bool     { return bool(m.Primary) }
func addressPrimary(a address) bool { return bool(a.Primary) }

// onePrimary refuses a multi-valued attribute with more than one value
// marked primary (RFC 7643 2.4: "The primary attribute value 'true' MUST
// appear no more than once"). Accepted, the first one silently won: the
// member's address came from whichever primary email the identity
// provider happened to list first.
//
// prev is the user as stored (empty at creation). A list as stored is not
// judged again: one written before this check would otherwise refuse
// every later push, a deprovisioning or a PATCH of another attribute
// alike. keep is bound's: a deprovisioning push keeps the stored list
// instead of being refused.
func (u *user) onePrimary(prev *user, keep bool) error {
	for _, a := range []struct {
		name   string
		n      int
		stored bool
		reset  func()
	}{
		{"emails", countPrimary(u.Emails, multiPrimary), slices.Equal(u.Emails, prev.Emails),
			func() { u.Emails = prev.Emails }},
		{"phoneNumbers", countPrimary(u.PhoneNumbers, multiPrimary), slices.Equal(u.PhoneNumbers, prev.PhoneNumbers),
			func() { u.PhoneNumbers = prev.PhoneNumbers }},
		{"addresses", countPrimary(u.Addresses, addressPrimary), slices.Equal(u.Addresses, prev.Addresses),
			func() { u.Addresses = prev.Addresses }},
		{"ims", countPrimary(u.IMs, multiPrimary), slices.Equal(u.IMs, prev.IMs), func() { u.IMs = prev.IMs }},
		{"photos", countPrimary(u.Photos, multiPrimary), slices.Equal(u.Photos, prev.Photos), func() { u.Photos = prev.Photos }},
		{"entitlements", countPrimary(u.Entitlements, multiPrimary), slices.Equal(u.Entitlements, prev.Entitlements),
			func() { u.Entitlements = prev.Entitlements }},
		{"roles", countPrimary(u.Roles, multiPrimary), slices.Equal(u.Roles, prev.Roles), func() { u.Roles = prev.Roles }},
		{"x509Certificates", countPrimary(u.X509Certificates, multiPrimary),
			slices.Equal(u.X509Certificates, prev.X509Certificates), func() { u.X509Certificates = prev.X509Certificates }},
	} {
		switch {
		case a.n <= 1 || a.stored:
		case keep:
			a.reset()
		default:
			return errInvalidValue(fmt.Sprintf("%s has %d values with primary true; at most one may be primary.", a.name, a.n))
		}
	}
	return nil
}
