// Package phone parses and validates MFA phone numbers into E.164, the one
// form Latchkey stores and sends to the SMS gateway.
//
// The widget formats numbers in the browser (libphonenumber-js), but the
// server never trusts that: every number is parsed again here with the
// libphonenumber metadata of github.com/nyaruka/phonenumbers (patched copy in
// third_party/phonenumbers), so a stored
// number is always a real, dialable E.164 number and two spellings of the
// same number compare equal (which duplicate detection relies on).
package phone

import (
	"errors"
	"fmt"
	"strings"

	"github.com/latchkey/latchkey/internal/apierr"
	"github.com/latchkey/latchkey/third_party/phonenumbers"
)

// maxInput bounds what is handed to the parser; E.164 is at most 16
// characters, so anything far longer is not a phone number.
const maxInput = 64

// nonGeographic is the region libphonenumber reports for global services
// (+800 freephone, +882 satellite, ...), which no SMS gateway delivers to.
const nonGeographic = "001"

// Normalize parses raw as an international number and returns its E.164
// form ("+14155552671"). The input must carry its country code ("+" and
// the digits; spaces, dashes, dots and parentheses are tolerated), because
// the API field is documented as E.164 and guessing a region would turn a
// typo into someone else's number.
//
// Errors are catalogued: invalid_phone_number for anything that is not a
// valid number or is a premium-rate or shared-cost one (libphonenumber's
// number types; the message says so), invalid_phone_number_country_code
// when the country code is unknown or not a country.
func Normalize(raw string) (string, error) {
	s := strings.TrimSpace(raw)
	if s == "" {
		return "", apierr.New(apierr.InvalidPhoneNumber)
	}
	if len(s) > maxInput || !strings.HasPrefix(s, "+") {
		return "", apierr.Wrap(apierr.InvalidPhoneNumber, fmt.Errorf("phone: not in international form"))
	}
	// Only digits and the usual separators: libphonenumber would also read
	// letters as a keypad spelling and other scripts' digits, so "+1 800
	// FLOWERS" or a homoglyph would become some other number.
	if strings.IndexFunc(s[1:], func(r rune) bool { return !strings.ContainsRune("0123456789 -.()", r) }) >= 0 {
		return "", apierr.Wrap(apierr.InvalidPhoneNumber, fmt.Errorf("phone: only digits, spaces and - . ( ) may follow the +"))
	}
	num, err := phonenumbers.Parse(s, "")
	if err != nil {
		if errors.Is(err, phonenumbers.ErrInvalidCountryCode) {
			return "", apierr.Wrap(apierr.InvalidPhoneNumberCountryCode, err)
		}
		return "", apierr.Wrap(apierr.InvalidPhoneNumber, err)
	}
	region := phonenumbers.GetRegionCodeForCountryCode(int(num.GetCountryCode()))
	if region == "" || region == "ZZ" || region == nonGeographic {
		return "", apierr.Wrap(apierr.InvalidPhoneNumberCountryCode, fmt.Errorf("phone: country code %d", num.GetCountryCode()))
	}
	if !phonenumbers.IsValidNumber(num) {
		return "", apierr.Wrap(apierr.InvalidPhoneNumber, fmt.Errorf("phone: not a valid number for %s", region))
	}
	if err := refuseCostly(num); err != nil {
		return "", err
	}
	out := phonenumbers.Format(num, phonenumbers.E164)
	if len(out) > maxE164 {
		// E.164 allows 15 digits; libphonenumber's metadata knows a few
		// longer national ranges that no SMS gateway addresses.
		return "", apierr.Wrap(apierr.InvalidPhoneNumber, fmt.Errorf("phone: longer than E.164 allows"))
	}
	return out, nil
}

// maxE164 is "+" and E.164's 15 digits.
const maxE164 = 16

// Sendable refuses texting number, an E.164 number stored before (a
// member's enrolled phone), when libphonenumber classes it premium-rate or
// shared-cost, as Normalize refuses storing one. It judges nothing
// else: a stored number that newer metadata no longer knows is the
// gateway's to refuse, not a reason to cut a member off their factor.
func Sendable(number string) error {
	num, err := phonenumbers.Parse(number, "")
	if err != nil {
		return nil
	}
	return refuseCostly(num)
}

// refuseCostly refuses premium-rate and shared-cost numbers. They pay
// their holder for traffic: texting codes to them is how SMS pumping turns
// a login form into revenue for whoever holds the range, and no member's
// phone is one.
func refuseCostly(num *phonenumbers.PhoneNumber) error {
	switch t := phonenumbers.GetNumberType(num); t {
	case phonenumbers.PREMIUM_RATE, phonenumbers.SHARED_COST:
		return apierr.Wrap(apierr.InvalidPhoneNumber, fmt.Errorf("phone: +%d number of type %d", num.GetCountryCode(), t)).WithMessage(
			"Premium-rate and shared-cost numbers cannot receive multi-factor authentication codes: use a mobile number.")
	}
	return nil
}
