package phone_test

import (
	"strings"
	"testing"

	"github.com/latchkey/latchkey/internal/apierr"
	"github.com/latchkey/latchkey/internal/phone"
)

func TestNormalize(t *testing.T) {
	t.Parallel()
	good := map[string]string{
		"+14155552671":        "+14155552671",
		" +1 415 555 2671 ":   "+14155552671",
		"+1 (415) 555-2671":   "+14155552671",
		"+1.415.555.2671":     "+14155552671",
		"+442079460958":       "+442079460958",
		"+44 20 7946 0958":    "+442079460958",
		"+33 6 12 34 56 78":   "+33612345678",
		"+49 1512 3456789":    "+4915123456789",
		"+81 90-1234-5678":    "+819012345678",
		"+61 412 345 678":     "+61412345678",
		"+55 11 91234-5678":   "+5511912345678",
		"+91 98765 43210":     "+919876543210",
		"+1 (212) 555-0123":   "+12125550123",
		"+353 85 123 4567":    "+353851234567",
		"+27 82 123 4567":     "+27821234567",
		"+86 138 0013 8000":   "+8613800138000",
		"+7 912 345-67-89":    "+79123456789",
		"+1-800-555-0199":     "+18005550199",
		"+12125550123 ":       "+12125550123",
		"\t+1 212 555 0123\n": "+12125550123",
	}
	for in, want := range good {
		got, err := phone.Normalize(in)
		if err != nil || got != want {
			t.Errorf("Normalize(%q) = %q, %v; want %q", in, got, err, want)
		}
	}

	bad := map[string]apierr.Type{
		"":                      apierr.InvalidPhoneNumber,
		"   ":                   apierr.InvalidPhoneNumber,
		"4155552671":            apierr.InvalidPhoneNumber, // no country code: not E.164
		"001 415 555 2671":      apierr.InvalidPhoneNumber,
		"+1 415 555":            apierr.InvalidPhoneNumber,
		"+1 000 555 2671":       apierr.InvalidPhoneNumber, // no such area code
		"+44 12":                apierr.InvalidPhoneNumber,
		"+abc":                  apierr.InvalidPhoneNumber,
		"+1 800 FLOWERS":        apierr.InvalidPhoneNumber, // no keypad spellings
		"+4902100000A0000A0000": apierr.InvalidPhoneNumber, // letters, and longer than E.164
		"+１ 415 555 2671":       apierr.InvalidPhoneNumber, // other scripts' digits
		"+1 415 555 2671 9999999999999999999999999999999999999999999999999": apierr.InvalidPhoneNumber,
		"+999 1234567":   apierr.InvalidPhoneNumberCountryCode, // unassigned
		"+0 1234567":     apierr.InvalidPhoneNumberCountryCode,
		"+800 1234 5678": apierr.InvalidPhoneNumberCountryCode, // global freephone, not a country
	}
	for in, wantType := range bad {
		got, err := phone.Normalize(in)
		if err == nil || !apierr.Is(err, wantType) {
			t.Errorf("Normalize(%q) = %q, %v; want %s", in, got, err, wantType)
		}
	}
}

// Premium-rate and shared-cost numbers (SMS pumping's destinations) are
// refused as invalid_phone_number, with a message that says why, both as
// input and as a stored number about to be texted; an ordinary mobile
// number passes both.
func TestPremiumRateRefused(t *testing.T) {
	t.Parallel()
	costly := []string{
		"+19002123456",  // US 900: premium rate
		"+449018123456", // UK 09: premium rate
		"+33891123456",  // France 089: premium rate
		"+448431234567", // UK 0843: shared cost
	}
	for _, n := range costly {
		_, err := phone.Normalize(n)
		if !apierr.Is(err, apierr.InvalidPhoneNumber) || !strings.Contains(err.Error(), "Premium-rate") {
			t.Errorf("Normalize(%q) = %v; want invalid_phone_number naming premium-rate numbers", n, err)
		}
		if err := phone.Sendable(n); !apierr.Is(err, apierr.InvalidPhoneNumber) {
			t.Errorf("Sendable(%q) = %v; want invalid_phone_number", n, err)
		}
	}
	for _, n := range []string{"+447911123456", "+33612345678", "+14155552671", "+18005550199"} {
		if got, err := phone.Normalize(n); err != nil || got != n {
			t.Errorf("Normalize(%q) = %q, %v; want it unchanged", n, got, err)
		}
		if err := phone.Sendable(n); err != nil {
			t.Errorf("Sendable(%q) = %v; want nil", n, err)
		}
	}
}
