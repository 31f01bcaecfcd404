package scim

import "fmt"

// address is one value of addresses (RFC 7643 4.1.2).
type address struct {
	Formatted     string   `json:"formatted,omitempty"`
	StreetAddress string   `json:"streetAddress,omitempty"`
	Locality      string   `json:"locality,omitempty"`
	Region        string   `json:"region,omitempty"`
	PostalCode    string   `json:"postalCode,omitempty"`
	Country       string   `json:"country,omitempty"`
	Type          string   `json:"type,omitempty"`
	Primary       flexBool `json:"primary,omitempty"`
}

// Bounds on the multi-valued attributes. The body limit bounds one
// request, but PATCH add appends to what is stored, so without a bound on
// the stored lists a token holder could grow a registration (read with
// every load of the member) a request at a time.
const (
	maxValues = 50   // values of one multi-valued attribute
	maxText   = 1024 // bytes of one string in a value
	// maxCertText bounds an x509Certificates value: a base64 DER
	// certificate, a few kilobytes for a long RSA chain member.
	maxCertText = 16 << 10
)

func multiFits(ms []multi, valueMax int) bool {
	if len(ms) > maxValues {
		return false
	}
	for _, m := range ms {
		if len(m.Value) > valueMax || len(m.Type) > maxText {
			return false
		}
	}
	return true
}

func addressesFit(as []address) bool {
	if len(as) > maxValues {
		return false
	}
	for _, a := range as {
		for _, s := range []string{a.Formatted, a.StreetAddress, a.Locality, a.Region, a.PostalCode, a.Country, a.Type} {
			if len(s) > maxText {
				return false
			}
		}
	}
	return true
}

// Bounds on the identifiers: an address's length, and the vendor's
// external_id limit.
const (
	maxUserName   = 320
	maxExternalID = 256
)

// bound refuses a missing or overlong userName, an overlong externalId,
// any other string over maxText (texts) and multi-valued attributes over
// the bounds; prev is the user as stored (nil at creation).
//
// It refuses a multi-valued attribute with two primary values too
// (onePrimary).
//
// A push with active false is never refused over them (as over its name
// or address, see updateUser): an attribute out of bounds keeps its
// stored value instead (never a cut one), and the answer shows it. A
// PATCH starts from the member's status, so one of a deactivated user
// counts as such a push. At creation there is nothing to keep, so it is
// refused.
func (u *user) bound(prev *user) error {
	keep := u.deprovisions() && prev != nil
	if prev == nil {
		prev = &user{}
	}
	switch {
	case u.UserName != "" && len(u.UserName) <= maxUserName:
	case keep:
		u.UserName = prev.UserName
	case u.UserName == "":
		return errInvalidValue("userName is required.")
	default:
		return errInvalidValue(fmt.Sprintf("userName is longer than %d bytes.", maxUserName))
	}
	switch {
	case len(u.ExternalID) <= maxExternalID:
	case keep:
		u.ExternalID = prev.ExternalID
	default:
		return errInvalidValue(fmt.Sprintf("externalId is longer than %d bytes.", maxExternalID))
	}
	kept := prev.texts()
	for i, a := range u.texts() {
		switch {
		case len(*a.v) <= maxText:
		case keep:
			*a.v = *kept[i].v
		default:
			return errInvalidValue(fmt.Sprintf("%s is longer than %d bytes.", a.name, maxText))
		}
	}
	for _, a := range []struct {
		name  string
		fits  bool
		text  int // the longest string a value may hold, for the refusal
		reset func()
	}{
		{"emails", multiFits(u.Emails, maxText), maxText, func() { u.Emails = prev.Emails }},
		{"phoneNumbers", multiFits(u.PhoneNumbers, maxText), maxText, func() { u.PhoneNumbers = prev.PhoneNumbers }},
		{"addresses", addressesFit(u.Addresses), maxText, func() { u.Addresses = prev.Addresses }},
		{"ims", multiFits(u.IMs, maxText), maxText, func() { u.IMs = prev.IMs }},
		{"photos", multiFits(u.Photos, maxText), maxText, func() { u.Photos = prev.Photos }},
		{"entitlements", multiFits(u.Entitlements, maxText), maxText, func() { u.Entitlements = prev.Entitlements }},
		{"roles", multiFits(u.Roles, maxText), maxText, func() { u.Roles = prev.Roles }},
		{"x509Certificates", multiFits(u.X509Certificates, maxCertText), maxCertText,
			func() { u.X509Certificates = prev.X509Certificates }},
	} {
		switch {
		case a.fits:
		case keep:
			a.reset()
		default:
			return errInvalidValue(fmt.Sprintf("%s has more than %d values, or a value with a string over %d bytes.",
				a.name, maxValues, a.text))
		}
	}
	return u.onePrimary(prev, keep)
}

// text is one single-valued string attribute of a user, by its path.
type text struct {
	name string
	v    *string
}

// texts are u's single-valued strings other than userName and externalId
// (which have bounds of their own), each bounded by maxText like the
// strings of multi-valued attributes: every one is stored with the
// registration and read with every load of the member. The sub-attributes
// of an absent complex attribute are listed as well, as empty strings, so
// a stored user's list names every path (bound reads the values to keep
// from it).
func (u *user) texts() []text {
	n, e := u.Name, u.Enterprise
	if n == nil {
		n = &name{}
	}
	if e == nil {
		e = &enterprise{}
	}
	m := e.Manager
	if m == nil {
		m = &manager{}
	}
	const ext = schemaEnterprise + ":"
	return []text{
		{"displayName", &u.DisplayName}, {"nickName", &u.NickName}, {"profileUrl", &u.ProfileURL}, {"title", &u.Title},
		{"userType", &u.UserType}, {"preferredLanguage", &u.PreferredLanguage}, {"locale", &u.Locale}, {"timezone", &u.Timezone},
		{"name.formatted", &n.Formatted}, {"name.familyName", &n.FamilyName}, {"name.givenName", &n.GivenName},
		{"name.middleName", &n.MiddleName}, {"name.honorificPrefix", &n.HonorificPrefix}, {"name.honorificSuffix", &n.HonorificSuffix},
		{ext + "employeeNumber", &e.EmployeeNumber}, {ext + "costCenter", &e.CostCenter}, {ext + "organization", &e.Organization},
		{ext + "division", &e.Division}, {ext + "department", &e.Department},
		{ext + "manager.value", &m.Value}, {ext + "manager.$ref", &m.Ref}, {ext + "manager.displayName", &m.DisplayName},
	}
}

// multiWire is values in the Node client's shape (B2BSCIMEmail and its
// like): every field present.
func multiWire(ms []multi) []map[string]any {
	out := []map[string]any{}
	for _, m := range ms {
		out = append(out, map[string]any{"value": m.Value, "type": m.Type, "primary": bool(m.Primary)})
	}
	return out
}

// addressWire is addresses in the Node client's Address shape.
func addressWire(as []address) []map[string]any {
	out := []map[string]any{}
	for _, a := range as {
		out = append(out, map[string]any{"formatted": a.Formatted, "street_address": a.StreetAddress,
			"locality": a.Locality, "region": a.Region, "postal_code": a.PostalCode, "country": a.Country,
			"type": a.Type, "primary": bool(a.Primary)})
	}
	return out
}
