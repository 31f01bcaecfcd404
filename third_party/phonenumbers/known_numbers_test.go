package phonenumbers

import "testing"

// TestKnownNumbers checks numbers whose type, region and formats are known
// from outside the metadata (the libphonenumber documentation and the
// .proto's own comments). The example-number tests cannot see a decoder
// that consistently files one description under another (fixed line as
// mobile, say), because each example then agrees with its pattern; these
// can. Each row also leans on particular fields: national and intl number
// formats, national prefixes for parsing and formatting, the transform
// rule, international prefixes and leading digits.
func TestKnownNumbers(t *testing.T) {
	const anyType PhoneNumberType = -1
	for _, tc := range []struct {
		input, region string
		e164          string
		typ           PhoneNumberType
		regionOf      string // GetRegionCodeForNumber
		national      string
		international string
	}{
		// Google London; "0" is GB's national prefix (parsing, formatting).
		{"020 7031 3000", "GB", "+442070313000", FIXED_LINE, "GB", "020 7031 3000", "+44 20 7031 3000"},
		{"+44 7400 123456", "", "+447400123456", MOBILE, "GB", "07400 123456", "+44 7400 123456"},
		{"+44 800 123 4567", "", "+448001234567", TOLL_FREE, "GB", "0800 123 4567", "+44 800 123 4567"},
		{"+44 909 876 5432", "", "+449098765432", PREMIUM_RATE, "GB", "0909 876 5432", "+44 909 876 5432"},
		// Jersey shares +44; its leading digits pick it out.
		{"+44 1534 456789", "", "+441534456789", FIXED_LINE, "JE", "01534 456789", "+44 1534 456789"},
		// The US cannot tell fixed lines from mobiles.
		{"(650) 253-0000", "US", "+16502530000", FIXED_LINE_OR_MOBILE, "US", "(650) 253-0000", "+1 650-253-0000"},
		{"+1 800 253 0000", "", "+18002530000", TOLL_FREE, "US", "(800) 253-0000", "+1 800-253-0000"},
		{"+1 900 253 0000", "", "+19002530000", PREMIUM_RATE, "US", "(900) 253-0000", "+1 900-253-0000"},
		// The Bahamas share +1; leading digits 242. (Type: not known here.)
		{"+1 242 357 1234", "", "+12423571234", anyType, "BS", "(242) 357-1234", "+1 242-357-1234"},
		// "011" is the US international prefix, "00" Germany's.
		{"011 44 20 7031 3000", "US", "+442070313000", FIXED_LINE, "GB", "020 7031 3000", "+44 20 7031 3000"},
		{"00 33 1 42 68 53 00", "DE", "+33142685300", FIXED_LINE, "FR", "01 42 68 53 00", "+33 1 42 68 53 00"},
		{"06 12 34 56 78", "FR", "+33612345678", MOBILE, "FR", "06 12 34 56 78", "+33 6 12 34 56 78"},
		{"030 123456", "DE", "+4930123456", FIXED_LINE, "DE", "030 123456", "+49 30 123456"},
		{"01512 3456789", "DE", "+4915123456789", MOBILE, "DE", "01512 3456789", "+49 1512 3456789"},
		// Italy keeps the leading zero internationally.
		{"02 3661 8300", "IT", "+390236618300", FIXED_LINE, "IT", "02 3661 8300", "+39 02 3661 8300"},
		// Argentina's mobiles: national prefix 0 and carrier code 15 are
		// transformed into the 9 of the international form, which has its
		// own (intl) number format. (The national format is left out: this
		// port writes "09 15-2345-6789", before and after the protobuf
		// change alike.)
		{"011 15-2345-6789", "AR", "+5491123456789", MOBILE, "AR", "", "+54 9 11 2345-6789"},
		// Kazakhstan shares +7 with Russia; leading digits 7.
		{"+7 701 123 4567", "", "+77011234567", MOBILE, "KZ", "8 (701) 123 4567", "+7 701 123 4567"},
	} {
		where := tc.input + " (" + tc.region + ")"
		num, err := Parse(tc.input, tc.region)
		if err != nil {
			t.Errorf("%s: %v", where, err)
			continue
		}
		if got := Format(num, E164); got != tc.e164 {
			t.Errorf("%s: E164 %q, want %q", where, got, tc.e164)
		}
		if got := GetNumberType(num); tc.typ != anyType && got != tc.typ {
			t.Errorf("%s: type %d, want %d", where, got, tc.typ)
		}
		if got := GetRegionCodeForNumber(num); got != tc.regionOf {
			t.Errorf("%s: region %q, want %q", where, got, tc.regionOf)
		}
		if got := Format(num, NATIONAL); tc.national != "" && got != tc.national {
			t.Errorf("%s: national %q, want %q", where, got, tc.national)
		}
		if got := Format(num, INTERNATIONAL); got != tc.international {
			t.Errorf("%s: international %q, want %q", where, got, tc.international)
		}
	}
	gb, _ := Parse("+44 20 7031 3000", "")
	if got, want := FormatOutOfCountryCallingNumber(gb, "US"), "011 44 20 7031 3000"; got != want {
		t.Errorf("GB number dialled from the US: %q, want %q", got, want)
	}
}
