package phonenumbers

import "slices"

// Latchkey patch: the library copied messages with proto.Merge(fresh, x)
// and set fields with proto.String and friends. Every Merge was into a
// new, empty message, which makes it a deep copy: these functions are that
// copy, without the protobuf runtime. They copy what the pointers point to,
// as Merge did, so that writing through a copy's field (or appending to a
// copy's slice) never changes the original, which is often the shared
// metadata.

// ptr returns a pointer to a copy of v (proto.String, proto.Int32, ...).
func ptr[T any](v T) *T {
	return &v
}

// clonePtr returns a new pointer to a copy of *p, or nil for nil.
func clonePtr[T any](p *T) *T {
	if p == nil {
		return nil
	}
	v := *p
	return &v
}

// clonePhoneNumber is a deep copy of n (proto.Merge into an empty message).
func clonePhoneNumber(n *PhoneNumber) *PhoneNumber {
	return &PhoneNumber{
		CountryCode:                  clonePtr(n.CountryCode),
		NationalNumber:               clonePtr(n.NationalNumber),
		Extension:                    clonePtr(n.Extension),
		ItalianLeadingZero:           clonePtr(n.ItalianLeadingZero),
		NumberOfLeadingZeros:         clonePtr(n.NumberOfLeadingZeros),
		RawInput:                     clonePtr(n.RawInput),
		CountryCodeSource:            clonePtr(n.CountryCodeSource),
		PreferredDomesticCarrierCode: clonePtr(n.PreferredDomesticCarrierCode),
	}
}

// cloneNumberFormat is a deep copy of f (proto.Merge into an empty
// message). An empty LeadingDigitsPattern stays nil, as Merge left it.
func cloneNumberFormat(f *NumberFormat) *NumberFormat {
	var leading []string
	if len(f.LeadingDigitsPattern) > 0 {
		leading = slices.Clone(f.LeadingDigitsPattern)
	}
	return &NumberFormat{
		Pattern:                              clonePtr(f.Pattern),
		Format:                               clonePtr(f.Format),
		LeadingDigitsPattern:                 leading,
		NationalPrefixFormattingRule:         clonePtr(f.NationalPrefixFormattingRule),
		NationalPrefixOptionalWhenFormatting: clonePtr(f.NationalPrefixOptionalWhenFormatting),
		DomesticCarrierCodeFormattingRule:    clonePtr(f.DomesticCarrierCodeFormattingRule),
	}
}
