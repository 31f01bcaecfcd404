package phonenumbers

import (
	"reflect"
	"strconv"
	"testing"
)

// The metadata's own example numbers, checked as upstream's
// ExampleNumbersTest does: they exercise every region's decoded patterns,
// lengths, prefixes and formats, so a field decoded wrongly or into the
// wrong place shows here.

// typedDesc is one number type of a region and the types GetNumberType
// may answer for its example: a fixed-line or mobile example may be
// FIXED_LINE_OR_MOBILE where the two patterns overlap.
type typedDesc struct {
	name  string
	desc  func(*PhoneMetadata) *PhoneNumberDesc
	types []PhoneNumberType
}

var typedDescs = []typedDesc{
	{"fixed line", (*PhoneMetadata).GetFixedLine, []PhoneNumberType{FIXED_LINE, FIXED_LINE_OR_MOBILE}},
	{"mobile", (*PhoneMetadata).GetMobile, []PhoneNumberType{MOBILE, FIXED_LINE_OR_MOBILE}},
	{"toll free", (*PhoneMetadata).GetTollFree, []PhoneNumberType{TOLL_FREE}},
	{"premium rate", (*PhoneMetadata).GetPremiumRate, []PhoneNumberType{PREMIUM_RATE}},
	{"shared cost", (*PhoneMetadata).GetSharedCost, []PhoneNumberType{SHARED_COST}},
	{"personal number", (*PhoneMetadata).GetPersonalNumber, []PhoneNumberType{PERSONAL_NUMBER}},
	{"voip", (*PhoneMetadata).GetVoip, []PhoneNumberType{VOIP}},
	{"pager", (*PhoneMetadata).GetPager, []PhoneNumberType{PAGER}},
	{"uan", (*PhoneMetadata).GetUan, []PhoneNumberType{UAN}},
	{"voicemail", (*PhoneMetadata).GetVoicemail, []PhoneNumberType{VOICEMAIL}},
}

func TestEveryExampleNumber(t *testing.T) {
	coll, err := MetadataCollection()
	if err != nil {
		t.Fatal(err)
	}
	regions, nonGeo, examples := 0, 0, 0
	perType := map[string]int{}
	for _, m := range coll.GetMetadata() {
		region := m.GetId()
		if region == REGION_CODE_FOR_NON_GEO_ENTITY {
			nonGeo++
		} else {
			regions++
		}
		for _, td := range typedDescs {
			example := td.desc(m).GetExampleNumber()
			if example == "" {
				continue
			}
			examples++
			perType[td.name]++
			checkExample(t, m, td, example)
		}
	}
	// The metadata of v1.8.1 has 245 regions and 9 non-geographical
	// entities; a decoder that lost regions must not pass by checking few.
	if regions < 240 || nonGeo < 8 || examples < 1100 {
		t.Fatalf("checked %d regions, %d non-geographical entities, %d examples", regions, nonGeo, examples)
	}
	// Nor one that lost a type (decoded it into another field, say).
	for _, td := range typedDescs {
		if perType[td.name] == 0 {
			t.Errorf("no %s example in the metadata", td.name)
		}
	}
	if got := len(GetSupportedRegions()); got != regions {
		t.Errorf("%d supported regions, %d in the metadata", got, regions)
	}
}

func checkExample(t *testing.T, m *PhoneMetadata, td typedDesc, example string) {
	t.Helper()
	region := m.GetId()
	where := region + " " + td.name + " " + example
	// A non-geographical entity's numbers carry their calling code.
	input, parseRegion := example, region
	if region == REGION_CODE_FOR_NON_GEO_ENTITY {
		input, parseRegion = "+"+strconv.Itoa(int(m.GetCountryCode()))+example, "ZZ"
	}
	num, err := Parse(input, parseRegion)
	if err != nil {
		t.Errorf("%s: Parse: %v", where, err)
		return
	}
	if num.GetCountryCode() != m.GetCountryCode() {
		t.Errorf("%s: country code %d, want %d", where, num.GetCountryCode(), m.GetCountryCode())
	}
	if !IsValidNumberForRegion(num, region) {
		t.Errorf("%s: not valid for its region", where)
	}
	if typ := GetNumberType(num); !contains(td.types, typ) {
		t.Errorf("%s: type %d, want one of %v", where, typ, td.types)
	}
	e164 := Format(num, E164)
	again, err := Parse(e164, "ZZ")
	if err != nil {
		t.Errorf("%s: Parse(%q): %v", where, e164, err)
		return
	}
	if !reflect.DeepEqual(num, again) {
		t.Errorf("%s: %q parses as %+v, the example as %+v", where, e164, again, num)
	}
}

func contains(types []PhoneNumberType, typ PhoneNumberType) bool {
	for _, t := range types {
		if t == typ {
			return true
		}
	}
	return false
}

// TestEveryShortNumberExample checks the short-number metadata's examples
// as upstream's ExampleNumbersTest does, with what this port exposes: each
// is a possible short number of its region and matches its own description
// (upstream's isCarrierSpecificForRegion and friends), the short-code
// example is a valid short number, and emergency examples are emergency
// numbers. (Cost and carrier examples need not be valid short numbers: they
// may lie outside the short_code pattern.)
func TestEveryShortNumberExample(t *testing.T) {
	coll, err := ShortNumberMetadataCollection()
	if err != nil {
		t.Fatal(err)
	}
	regions, examples := 0, 0
	perType := map[string]int{}
	for _, m := range coll.GetMetadata() {
		regions++
		region := m.GetId()
		for _, d := range []struct {
			name string
			desc *PhoneNumberDesc
		}{
			{"short code", m.GetShortCode()},
			{"toll free", m.GetTollFree()},
			{"standard rate", m.GetStandardRate()},
			{"premium rate", m.GetPremiumRate()},
			{"carrier specific", m.GetCarrierSpecific()},
			{"sms services", m.GetSmsServices()},
			{"emergency", m.GetEmergency()},
		} {
			example := d.desc.GetExampleNumber()
			if example == "" {
				continue
			}
			examples++
			perType[d.name]++
			where := region + " " + d.name + " " + example
			num, err := Parse(example, region)
			if err != nil {
				t.Errorf("%s: Parse: %v", where, err)
				continue
			}
			if !IsPossibleShortNumberForRegion(num, region) {
				t.Errorf("%s: not a possible short number for its region", where)
			}
			if !matchesPossibleNumberAndNationalNumber(GetNationalSignificantNumber(num), d.desc) {
				t.Errorf("%s: does not match its description", where)
			}
			switch d.name {
			case "short code":
				if !IsValidShortNumberForRegion(num, region) {
					t.Errorf("%s: not a valid short number for its region", where)
				}
			case "emergency":
				if !IsEmergencyNumber(example, region) {
					t.Errorf("%s: not an emergency number", where)
				}
			}
		}
	}
	if regions < 240 || examples < 800 {
		t.Fatalf("checked %d regions, %d examples", regions, examples)
	}
	// Every description has examples somewhere, but sms_services, which
	// the metadata of v1.8.1 never sets (TestDecodeEveryField covers it).
	for _, name := range []string{"short code", "toll free", "standard rate", "premium rate", "carrier specific", "emergency"} {
		if perType[name] == 0 {
			t.Errorf("no %s example in the short-number metadata", name)
		}
	}
}
