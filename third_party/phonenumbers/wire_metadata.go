package phonenumbers

import "fmt"

// Latchkey patch: the messages of phonemetadata.proto, decoded with
// wire.go. Field numbers are the .proto's. Each decode merges into its
// receiver (scalars overwrite, repeated fields append), which is what
// protobuf does when a field or message appears more than once.

func (c *PhoneMetadataCollection) decode(b []byte) error {
	d := wireDecoder{b}
	for d.more() {
		num, typ, err := d.tag()
		if err != nil {
			return fmt.Errorf("PhoneMetadataCollection: %w", err)
		}
		switch num {
		case 1:
			m := &PhoneMetadata{}
			err = d.message(typ, m.decode)
			if err == nil {
				c.Metadata = append(c.Metadata, m)
			}
		default:
			err = d.skip(num, typ, 0)
		}
		if err != nil {
			return fmt.Errorf("PhoneMetadataCollection field %d: %w", num, err)
		}
	}
	return nil
}

func (m *PhoneMetadata) decode(b []byte) error {
	d := wireDecoder{b}
	for d.more() {
		num, typ, err := d.tag()
		if err != nil {
			return fmt.Errorf("PhoneMetadata %q: %w", m.GetId(), err)
		}
		if desc := m.descField(num); desc != nil {
			if *desc == nil {
				*desc = &PhoneNumberDesc{}
			}
			err = d.message(typ, (*desc).decode)
		} else {
			err = m.decodeField(&d, num, typ)
		}
		if err != nil {
			return fmt.Errorf("PhoneMetadata %q field %d: %w", m.GetId(), num, err)
		}
	}
	if m.Id == nil {
		return fmt.Errorf("PhoneMetadata field 9 (id): %w", errRequiredMissing)
	}
	return nil
}

// descField is the PhoneNumberDesc field numbered num, or nil.
func (m *PhoneMetadata) descField(num int32) **PhoneNumberDesc {
	switch num {
	case 1:
		return &m.GeneralDesc
	case 2:
		return &m.FixedLine
	case 3:
		return &m.Mobile
	case 4:
		return &m.TollFree
	case 5:
		return &m.PremiumRate
	case 6:
		return &m.SharedCost
	case 7:
		return &m.PersonalNumber
	case 8:
		return &m.Voip
	case 21:
		return &m.Pager
	case 24:
		return &m.NoInternationalDialling
	case 25:
		return &m.Uan
	case 27:
		return &m.Emergency
	case 28:
		return &m.Voicemail
	case 29:
		return &m.ShortCode
	case 30:
		return &m.StandardRate
	case 31:
		return &m.CarrierSpecific
	case 33:
		return &m.SmsServices
	}
	return nil
}

// decodeField decodes PhoneMetadata's fields other than the descriptions.
func (m *PhoneMetadata) decodeField(d *wireDecoder, num int32, typ wireType) error {
	var err error
	switch num {
	case 9:
		m.Id, err = d.string(typ)
	case 10:
		m.CountryCode, err = d.int32(typ)
	case 11:
		m.InternationalPrefix, err = d.string(typ)
	case 12:
		m.NationalPrefix, err = d.string(typ)
	case 13:
		m.PreferredExtnPrefix, err = d.string(typ)
	case 15:
		m.NationalPrefixForParsing, err = d.string(typ)
	case 16:
		m.NationalPrefixTransformRule, err = d.string(typ)
	case 17:
		m.PreferredInternationalPrefix, err = d.string(typ)
	case 18:
		m.SameMobileAndFixedLinePattern, err = d.bool(typ)
	case 19:
		f := &NumberFormat{}
		if err = d.message(typ, f.decode); err == nil {
			m.NumberFormat = append(m.NumberFormat, f)
		}
	case 20:
		f := &NumberFormat{}
		if err = d.message(typ, f.decode); err == nil {
			m.IntlNumberFormat = append(m.IntlNumberFormat, f)
		}
	case 22:
		m.MainCountryForCode, err = d.bool(typ)
	case 23:
		m.LeadingDigits, err = d.string(typ)
	case 26:
		m.LeadingZeroPossible, err = d.bool(typ)
	case 32:
		m.MobileNumberPortableRegion, err = d.bool(typ)
	default:
		err = d.skip(num, typ, 0)
	}
	return err
}

func (p *PhoneNumberDesc) decode(b []byte) error {
	d := wireDecoder{b}
	for d.more() {
		num, typ, err := d.tag()
		if err != nil {
			return fmt.Errorf("PhoneNumberDesc: %w", err)
		}
		switch num {
		case 2:
			p.NationalNumberPattern, err = d.string(typ)
		case 6:
			p.ExampleNumber, err = d.string(typ)
		case 9:
			err = d.appendInt32(typ, &p.PossibleLength)
		case 10:
			err = d.appendInt32(typ, &p.PossibleLengthLocalOnly)
		default:
			err = d.skip(num, typ, 0)
		}
		if err != nil {
			return fmt.Errorf("PhoneNumberDesc field %d: %w", num, err)
		}
	}
	return nil
}

func (f *NumberFormat) decode(b []byte) error {
	d := wireDecoder{b}
	for d.more() {
		num, typ, err := d.tag()
		if err != nil {
			return fmt.Errorf("NumberFormat: %w", err)
		}
		switch num {
		case 1:
			f.Pattern, err = d.string(typ)
		case 2:
			f.Format, err = d.string(typ)
		case 3:
			var s *string
			if s, err = d.string(typ); err == nil {
				f.LeadingDigitsPattern = append(f.LeadingDigitsPattern, *s)
			}
		case 4:
			f.NationalPrefixFormattingRule, err = d.string(typ)
		case 5:
			f.DomesticCarrierCodeFormattingRule, err = d.string(typ)
		case 6:
			f.NationalPrefixOptionalWhenFormatting, err = d.bool(typ)
		default:
			err = d.skip(num, typ, 0)
		}
		if err != nil {
			return fmt.Errorf("NumberFormat field %d: %w", num, err)
		}
	}
	if f.Pattern == nil || f.Format == nil {
		return fmt.Errorf("NumberFormat field 1 (pattern) or 2 (format): %w", errRequiredMissing)
	}
	return nil
}
