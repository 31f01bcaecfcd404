package phonenumbers

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// A tiny protobuf encoder, written from the wire format's definition, so
// that the decoder is tested against bytes it did not produce itself.

type enc []byte

func (e enc) varint(v uint64) enc {
	for v >= 0x80 {
		e = append(e, byte(v)|0x80)
		v >>= 7
	}
	return append(e, byte(v))
}

func (e enc) tag(num int, typ wireType) enc { return e.varint(uint64(num)<<3 | uint64(typ)) }

func (e enc) str(num int, s string) enc {
	return append(e.tag(num, wireBytes).varint(uint64(len(s))), s...)
}

func (e enc) msg(num int, m enc) enc { return e.str(num, string(m)) }

// i32 sends v as protobuf sends an int32: sign-extended to 64 bits, so
// -1 takes ten bytes.
func (e enc) i32(num int, v int32) enc { return e.tag(num, wireVarint).varint(uint64(int64(v))) }

func (e enc) boolean(num int, v bool) enc {
	if v {
		return e.tag(num, wireVarint).varint(1)
	}
	return e.tag(num, wireVarint).varint(0)
}

func (e enc) packed(num int, vs ...int32) enc {
	var p enc
	for _, v := range vs {
		p = p.varint(uint64(int64(v)))
	}
	return e.msg(num, p)
}

// unknown appends a field of every wire type under numbers the .proto
// does not use, a group holding a nested group among them.
func (e enc) unknown() enc {
	e = e.tag(1000, wireVarint).varint(1<<63 | 5)
	e = append(e.tag(1001, wireFixed64), 1, 2, 3, 4, 5, 6, 7, 8)
	e = e.str(1002, "skipped")
	e = append(e.tag(1003, wireFixed32), 1, 2, 3, 4)
	e = e.tag(1004, wireStartGroup).i32(1, 7).tag(1005, wireStartGroup).str(2, "x").tag(1005, wireEndGroup)
	return e.tag(1004, wireEndGroup)
}

// desc encodes a PhoneNumberDesc whose values all carry tag, so that a
// description decoded into the wrong field shows.
func desc(tag string, length int32) enc {
	return enc{}.unknown().str(2, "pattern-"+tag).i32(9, length).packed(9, length+1, length+2).
		packed(10, length-1).i32(10, length-2).str(6, "example-"+tag)
}

func wantDesc(tag string, length int32) *PhoneNumberDesc {
	return &PhoneNumberDesc{
		NationalNumberPattern:   ptr("pattern-" + tag),
		PossibleLength:          []int32{length, length + 1, length + 2},
		PossibleLengthLocalOnly: []int32{length - 1, length - 2},
		ExampleNumber:           ptr("example-" + tag),
	}
}

func numberFormat(tag string) enc {
	return enc{}.str(1, "p-"+tag).unknown().str(2, "f-"+tag).str(3, "l1-"+tag).str(3, "l2-"+tag).
		str(4, "np-"+tag).str(5, "cc-"+tag).boolean(6, true)
}

func wantNumberFormat(tag string) *NumberFormat {
	return &NumberFormat{
		Pattern:                              ptr("p-" + tag),
		Format:                               ptr("f-" + tag),
		LeadingDigitsPattern:                 []string{"l1-" + tag, "l2-" + tag},
		NationalPrefixFormattingRule:         ptr("np-" + tag),
		NationalPrefixOptionalWhenFormatting: ptr(true),
		DomesticCarrierCodeFormattingRule:    ptr("cc-" + tag),
	}
}

// fullMetadata sets every field of PhoneMetadata, each description with
// its own values; general_desc comes in two parts, which protobuf merges.
func fullMetadata() enc {
	m := enc{}.unknown().
		msg(1, enc{}.str(2, "pattern-general").i32(9, -1)).
		msg(2, desc("fixed", 20)).msg(3, desc("mobile", 30)).msg(4, desc("tollfree", 40)).
		msg(5, desc("premium", 50)).msg(6, desc("shared", 60)).msg(7, desc("personal", 70)).
		msg(8, desc("voip", 80)).
		str(9, "XX").i32(10, 999).str(11, "00").str(12, "0").str(13, " ext ").
		str(15, "0(1)?").str(16, "$1").str(17, "011").boolean(18, true).
		msg(19, numberFormat("n1")).msg(19, numberFormat("n2")).msg(20, numberFormat("i1")).
		msg(21, desc("pager", 210)).boolean(22, true).str(23, "[2-9]").
		msg(24, desc("noidd", 240)).msg(25, desc("uan", 250)).boolean(26, true).
		msg(27, desc("emergency", 270)).msg(28, desc("voicemail", 280)).msg(29, desc("short", 290)).
		msg(30, desc("standard", 300)).msg(31, desc("carrier", 310)).boolean(32, true).
		msg(33, desc("sms", 330)).
		msg(1, enc{}.str(6, "example-general").i32(10, 3))
	return m
}

func wantFullMetadata() *PhoneMetadata {
	return &PhoneMetadata{
		GeneralDesc: &PhoneNumberDesc{
			NationalNumberPattern:   ptr("pattern-general"),
			PossibleLength:          []int32{-1},
			PossibleLengthLocalOnly: []int32{3},
			ExampleNumber:           ptr("example-general"),
		},
		FixedLine:                     wantDesc("fixed", 20),
		Mobile:                        wantDesc("mobile", 30),
		TollFree:                      wantDesc("tollfree", 40),
		PremiumRate:                   wantDesc("premium", 50),
		SharedCost:                    wantDesc("shared", 60),
		PersonalNumber:                wantDesc("personal", 70),
		Voip:                          wantDesc("voip", 80),
		Pager:                         wantDesc("pager", 210),
		Uan:                           wantDesc("uan", 250),
		Emergency:                     wantDesc("emergency", 270),
		Voicemail:                     wantDesc("voicemail", 280),
		ShortCode:                     wantDesc("short", 290),
		StandardRate:                  wantDesc("standard", 300),
		CarrierSpecific:               wantDesc("carrier", 310),
		SmsServices:                   wantDesc("sms", 330),
		NoInternationalDialling:       wantDesc("noidd", 240),
		Id:                            ptr("XX"),
		CountryCode:                   ptr(int32(999)),
		InternationalPrefix:           ptr("00"),
		PreferredInternationalPrefix:  ptr("011"),
		NationalPrefix:                ptr("0"),
		PreferredExtnPrefix:           ptr(" ext "),
		NationalPrefixForParsing:      ptr("0(1)?"),
		NationalPrefixTransformRule:   ptr("$1"),
		SameMobileAndFixedLinePattern: ptr(true),
		NumberFormat:                  []*NumberFormat{wantNumberFormat("n1"), wantNumberFormat("n2")},
		IntlNumberFormat:              []*NumberFormat{wantNumberFormat("i1")},
		MainCountryForCode:            ptr(true),
		LeadingDigits:                 ptr("[2-9]"),
		LeadingZeroPossible:           ptr(true),
		MobileNumberPortableRegion:    ptr(true),
	}
}

func TestDecodeEveryField(t *testing.T) {
	second := enc{}.str(9, "YY").boolean(32, false)
	b := enc{}.msg(1, fullMetadata()).unknown().msg(1, second)
	got, err := decodeMetadataCollection(b)
	if err != nil {
		t.Fatal(err)
	}
	want := &PhoneMetadataCollection{Metadata: []*PhoneMetadata{
		wantFullMetadata(),
		{Id: ptr("YY"), MobileNumberPortableRegion: ptr(false)},
	}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("decoded (-want +got):\n%s", diff)
	}
}

func TestDecodeRefusesTruncatedInput(t *testing.T) {
	// The collection is one length-delimited field, so every proper,
	// non-empty prefix of it ends inside that field.
	b := enc{}.msg(1, fullMetadata())
	for n := 1; n < len(b); n++ {
		if _, err := decodeMetadataCollection(b[:n]); !errors.Is(err, errTruncated) {
			t.Fatalf("%d of %d bytes: err = %v, want truncated", n, len(b), err)
		}
	}
	// Truncated inside a nested message whose own length is consistent: a
	// string longer than what is left of its PhoneNumberDesc.
	inner := enc{}.tag(2, wireBytes).varint(10).str(6, "abc")
	b = enc{}.msg(1, enc{}.str(9, "XX").msg(1, inner))
	if _, err := decodeMetadataCollection(b); !errors.Is(err, errTruncated) {
		t.Fatalf("string past its message: err = %v, want truncated", err)
	}
	// Skipped unknown fields are checked as well.
	for name, field := range map[string]enc{
		"fixed64": append(enc{}.tag(1000, wireFixed64), 1, 2, 3),
		"fixed32": append(enc{}.tag(1000, wireFixed32), 1),
		"bytes":   append(enc{}.tag(1000, wireBytes).varint(5), 1),
		"varint":  append(enc{}.tag(1000, wireVarint), 0x80),
		"group":   enc{}.tag(1000, wireStartGroup).i32(1, 1),
	} {
		b := enc{}.msg(1, append(enc{}.str(9, "XX"), field...))
		if _, err := decodeMetadataCollection(b); !errors.Is(err, errTruncated) {
			t.Fatalf("unknown %s: err = %v, want truncated", name, err)
		}
	}
}

func TestDecodeRefusesWrongWireType(t *testing.T) {
	for name, field := range map[string]enc{
		"id as varint":             enc{}.tag(9, wireVarint).varint(1),
		"country_code as bytes":    enc{}.str(10, "1"),
		"general_desc as varint":   enc{}.tag(1, wireVarint).varint(1),
		"number_format as fixed32": append(enc{}.tag(19, wireFixed32), 1, 2, 3, 4),
		"main_country as fixed64":  append(enc{}.tag(22, wireFixed64), 1, 2, 3, 4, 5, 6, 7, 8),
		"possible_length fixed32":  enc{}.msg(1, append(enc{}.tag(9, wireFixed32), 1, 2, 3, 4)),
		"pattern as varint":        enc{}.msg(19, enc{}.tag(1, wireVarint).varint(1)),
		"wire type 6":              enc{}.tag(1000, 6),
		"wire type 7":              enc{}.tag(1000, 7),
	} {
		b := enc{}.msg(1, append(enc{}.str(9, "XX"), field...))
		if _, err := decodeMetadataCollection(b); !errors.Is(err, errWireType) {
			t.Errorf("%s: err = %v, want wrong wire type", name, err)
		}
	}
}

func TestDecodeRefusesMalformedInput(t *testing.T) {
	for name, tc := range map[string]struct {
		b    enc
		want error
	}{
		"varint of 11 bytes": {
			append(enc{}.tag(1, wireBytes), 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01),
			errVarintOverflow,
		},
		"field number 0":        {enc{}.tag(0, wireVarint).varint(1), errFieldNumber},
		"field number too big":  {enc{}.tag(1<<29, wireVarint).varint(1), errFieldNumber},
		"lone end-group":        {enc{}.tag(5, wireEndGroup), errUnexpectedEnd},
		"group ended by other":  {enc{}.tag(5, wireStartGroup).tag(6, wireEndGroup), errUnexpectedEnd},
		"metadata without id":   {enc{}.msg(1, enc{}.i32(10, 1)), errRequiredMissing},
		"format without format": {enc{}.msg(1, enc{}.str(9, "XX").msg(19, enc{}.str(1, "p"))), errRequiredMissing},
		"format without pattern": {
			enc{}.msg(1, enc{}.str(9, "XX").msg(19, enc{}.str(2, "f"))), errRequiredMissing,
		},
	} {
		if _, err := decodeMetadataCollection(tc.b); !errors.Is(err, tc.want) {
			t.Errorf("%s: err = %v, want %v", name, err, tc.want)
		}
	}
	deep := enc{}
	for range maxGroupDepth + 1 {
		deep = deep.tag(1000, wireStartGroup)
	}
	if _, err := decodeMetadataCollection(deep); !errors.Is(err, errGroupTooDeep) {
		t.Errorf("deep groups: err = %v, want %v", err, errGroupTooDeep)
	}
}
