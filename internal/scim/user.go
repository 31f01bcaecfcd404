package scim

import (
	"bytes"
	"encoding/json"
	"strings"

	"github.com/latchkey/latchkey/internal/emailaddr"
	"github.com/latchkey/latchkey/internal/organization"
)

// flexBool is a SCIM boolean as identity providers send it: true, or the
// strings "True"/"False" (Microsoft Entra's PATCH values).
type flexBool bool

// UnmarshalJSON accepts a JSON boolean or a string spelling one.
func (b *flexBool) UnmarshalJSON(data []byte) error {
	var v any
	if err := json.Unmarshal(data, &v); err != nil {
		return err
	}
	switch x := v.(type) {
	case bool:
		*b = flexBool(x)
	case string:
		switch strings.ToLower(strings.TrimSpace(x)) {
		case "true":
			*b = true
		case "false":
			*b = false
		default:
			return errInvalidValue("Boolean attribute has the value " + x + ".")
		}
	case nil:
		*b = false
	default:
		return errInvalidValue("A boolean attribute has a value of another type.")
	}
	return nil
}

// name is a user's name attribute.
type name struct {
	Formatted       string `json:"formatted,omitempty"`
	FamilyName      string `json:"familyName,omitempty"`
	GivenName       string `json:"givenName,omitempty"`
	MiddleName      string `json:"middleName,omitempty"`
	HonorificPrefix string `json:"honorificPrefix,omitempty"`
	HonorificSuffix string `json:"honorificSuffix,omitempty"`
}

// multi is one value of a multi-valued attribute: emails, phoneNumbers,
// ims, photos, entitlements, roles and x509Certificates share this shape
// (RFC 7643 4.1.2, 4.1.3); addresses have their own (values.go).
type multi struct {
	Value   string   `json:"value"`
	Type    string   `json:"type,omitempty"`
	Primary flexBool `json:"primary,omitempty"`
}

// enterprise is the enterprise user extension.
type enterprise struct {
	EmployeeNumber string   `json:"employeeNumber,omitempty"`
	CostCenter     string   `json:"costCenter,omitempty"`
	Organization   string   `json:"organization,omitempty"`
	Division       string   `json:"division,omitempty"`
	Department     string   `json:"department,omitempty"`
	Manager        *manager `json:"manager,omitempty"`
}

// manager is the enterprise extension's manager, a complex attribute
// (RFC 7643 4.3).
type manager struct {
	Value       string `json:"value,omitempty"`
	Ref         string `json:"$ref,omitempty"`
	DisplayName string `json:"displayName,omitempty"`
}

// UnmarshalJSON accepts the object, or a bare string as its value:
// Microsoft Entra sets a manager with {"op":"Add","path":"...:manager",
// "value":"<id>"}, and refusing that would refuse the rest of the PATCH
// with it (a deprovisioning in the same push, say).
func (m *manager) UnmarshalJSON(data []byte) error {
	var s string
	if err := json.Unmarshal(data, &s); err == nil {
		*m = manager{Value: s}
		return nil
	}
	type plain manager // without this method, so no recursion
	var p plain
	if err := json.Unmarshal(data, &p); err != nil {
		return errInvalidValue("manager must be an object or a string.")
	}
	*m = manager(p)
	return nil
}

// user is a User resource as the identity provider writes it and as it is
// stored (scim_registrations.attributes). The server's own attributes
// (id, meta, groups, active) are added when it is answered.
type user struct {
	ExternalID        string      `json:"externalId,omitempty"`
	UserName          string      `json:"userName"`
	Name              *name       `json:"name,omitempty"`
	DisplayName       string      `json:"displayName,omitempty"`
	NickName          string      `json:"nickName,omitempty"`
	ProfileURL        string      `json:"profileUrl,omitempty"`
	Title             string      `json:"title,omitempty"`
	UserType          string      `json:"userType,omitempty"`
	PreferredLanguage string      `json:"preferredLanguage,omitempty"`
	Locale            string      `json:"locale,omitempty"`
	Timezone          string      `json:"timezone,omitempty"`
	Active            *flexBool   `json:"active,omitempty"`
	Emails            []multi     `json:"emails,omitempty"`
	PhoneNumbers      []multi     `json:"phoneNumbers,omitempty"`
	Addresses         []address   `json:"addresses,omitempty"`
	IMs               []multi     `json:"ims,omitempty"`
	Photos            []multi     `json:"photos,omitempty"`
	Entitlements      []multi     `json:"entitlements,omitempty"`
	Roles             []multi     `json:"roles,omitempty"` // kept and echoed only: SCIM groups grant roles, not this
	X509Certificates  []multi     `json:"x509Certificates,omitempty"`
	Enterprise        *enterprise `json:"urn:ietf:params:scim:schemas:extension:enterprise:2.0:User,omitempty"`
}

// parseUser reads a User resource from its decoded JSON. encoding/json
// matches attribute names case-insensitively, as SCIM requires. The
// values are checked by bound, which knows whether the push deprovisions.
func parseUser(doc map[string]any) (*user, error) {
	raw, err := json.Marshal(doc)
	if err != nil {
		return nil, errInvalidSyntax("The user could not be read.")
	}
	return decodeUser(raw)
}

// decodeUser is parseUser of the document as JSON.
func decodeUser(raw []byte) (*user, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	var u user
	if err := dec.Decode(&u); err != nil {
		if se, ok := err.(*scimError); ok {
			return nil, se
		}
		return nil, errInvalidValue("The user has an attribute of the wrong type: " + err.Error())
	}
	if e := u.Enterprise; e != nil && e.Manager != nil && *e.Manager == (manager{}) {
		e.Manager = nil // "" (the string form) or {}: no manager
	}
	u.UserName = strings.TrimSpace(u.UserName)
	return &u, nil
}

// deprovisions reports whether u, as a push left it, deactivates the user.
func (u *user) deprovisions() bool { return u.Active != nil && !bool(*u.Active) }

// toDoc is u as a JSON object, for PATCH to edit.
func (u *user) toDoc() map[string]any {
	raw, _ := json.Marshal(u)
	doc := map[string]any{}
	_ = json.Unmarshal(raw, &doc)
	return doc
}

// email is the member address the user's attributes name: the primary
// email, else a work email, else the first, else userName when it is an
// address; "" when there is none.
func (u *user) email() (string, error) {
	pick := ""
	for _, e := range u.Emails {
		if e.Primary {
			pick = e.Value
			break
		}
	}
	for _, e := range u.Emails {
		if pick == "" && strings.EqualFold(e.Type, "work") {
			pick = e.Value
		}
	}
	if pick == "" && len(u.Emails) > 0 {
		pick = u.Emails[0].Value
	}
	if pick == "" {
		if _, err := emailaddr.Normalize(u.UserName); err != nil {
			return "", nil
		}
		pick = u.UserName
	}
	addr, err := emailaddr.Normalize(pick)
	if err != nil {
		return "", errInvalidValue("The user's email " + pick + " is not a valid email address.")
	}
	return addr, nil
}

// memberName is the member name the attributes give: name.formatted, or
// the given and family names, or displayName.
//
// The identity provider's name is cut to the member name limit rather
// than refused, as for a just-in-time signup: a push (a deprovisioning
// above all) must not fail over a name nobody can change here.
func (u *user) memberName() string { return organization.TruncateName(u.fullName()) }

func (u *user) fullName() string {
	if u.Name != nil {
		if f := strings.TrimSpace(u.Name.Formatted); f != "" {
			return f
		}
		if n := strings.TrimSpace(u.Name.GivenName + " " + u.Name.FamilyName); n != "" {
			return n
		}
	}
	return strings.TrimSpace(u.DisplayName)
}

// attributes is u in the wire's SCIMAttributes shape (member
// scim_registration.scim_attributes), with the server's id, active state
// and groups.
func (u *user) attributes(id string, active bool, groups []groupRef) map[string]any {
	gs := []map[string]any{}
	for _, g := range groups {
		gs = append(gs, map[string]any{"value": g.Value, "display": g.Display})
	}
	out := map[string]any{"user_name": u.UserName, "id": id, "external_id": u.ExternalID, "active": active, "groups": gs,
		"display_name": u.DisplayName, "nick_name": u.NickName, "profile_url": u.ProfileURL, "user_type": u.UserType,
		"title": u.Title, "preferred_language": u.PreferredLanguage, "locale": u.Locale, "timezone": u.Timezone,
		"emails": multiWire(u.Emails), "phone_numbers": multiWire(u.PhoneNumbers), "addresses": addressWire(u.Addresses),
		"ims": multiWire(u.IMs), "photos": multiWire(u.Photos), "entitlements": multiWire(u.Entitlements),
		"roles": multiWire(u.Roles), "x509certificates": multiWire(u.X509Certificates)}
	if n := u.Name; n != nil {
		out["name"] = map[string]any{"formatted": n.Formatted, "family_name": n.FamilyName, "given_name": n.GivenName,
			"middle_name": n.MiddleName, "honorific_prefix": n.HonorificPrefix, "honorific_suffix": n.HonorificSuffix}
	}
	if e := u.Enterprise; e != nil {
		x := map[string]any{"employee_number": e.EmployeeNumber, "cost_center": e.CostCenter, "division": e.Division,
			"department": e.Department, "organization": e.Organization}
		if e.Manager != nil {
			x["manager"] = map[string]any{"value": e.Manager.Value, "ref": e.Manager.Ref, "display_name": e.Manager.DisplayName}
		}
		out["enterprise_extension"] = x
	}
	return out
}

// groupRef is a group or member reference inside a resource.
type groupRef struct {
	Value   string `json:"value"`
	Display string `json:"display,omitempty"`
	Ref     string `json:"$ref,omitempty"`
}
