package scim

import (
	"errors"
	"strings"

	"github.com/latchkey/latchkey/internal/organization"
	"github.com/latchkey/latchkey/internal/store"
)

// The attributes Users and Groups filter on, following the schemas that
// /Schemas publishes (schemas.go, publishedSchemas) for caseExact; id is
// caseExact as RFC 7643 3.1 has it for every resource.

var (
	urnUser       = strings.ToLower(schemaUser)
	urnEnterprise = strings.ToLower(schemaEnterprise)
	urnGroup      = strings.ToLower(schemaGroup)
)

// userTextKeys are the User's simple string attributes kept only in the
// stored attributes (by their JSON names there); none is caseExact.
var userTextKeys = map[string]string{"displayname": "displayName", "nickname": "nickName", "title": "title",
	"usertype": "userType", "preferredlanguage": "preferredLanguage", "locale": "locale", "timezone": "timezone",
	"profileurl": "profileUrl"}

var nameKeys = map[string]string{"formatted": "formatted", "familyname": "familyName", "givenname": "givenName",
	"middlename": "middleName", "honorificprefix": "honorificPrefix", "honorificsuffix": "honorificSuffix"}

var enterpriseKeys = map[string]string{"employeenumber": "employeeNumber", "costcenter": "costCenter",
	"organization": "organization", "division": "division", "department": "department"}

// userAttrs resolves User attributes over scim_registrations r joined
// with members m.
type userAttrs struct{ d store.Dialect }

// stored is a text attribute kept only in the stored attributes, read
// from their folded copy (foldedAttributes).
func (u userAttrs) stored(keys ...string) attrSpec {
	return attrSpec{kind: kindText, expr: jsonText(u.d, "r.attributes_folded", keys...), fold: foldGo}
}

func (u userAttrs) attr(p attrPath) (attrSpec, error) {
	switch p.urn {
	case "", urnUser:
	case urnEnterprise:
		if k, ok := enterpriseKeys[p.attr]; ok {
			return plain(p, u.stored(schemaEnterprise, k))
		}
		if p.attr == "manager" {
			return attrSpec{}, errNotFilterable(p)
		}
		return attrSpec{}, errUnknownAttr
	default:
		return attrSpec{}, errUnknownAttr
	}
	switch p.attr {
	case "id":
		return plain(p, attrSpec{kind: kindText, expr: "r.member_id"})
	case "username":
		return plain(p, attrSpec{kind: kindText, expr: "r.user_name_key", fold: foldGo})
	case "externalid":
		return plain(p, attrSpec{kind: kindText, expr: "r.external_id"})
	case "active":
		return plain(p, attrSpec{kind: kindBool, expr: "m.status <> '" + organization.StatusDeleted + "'"})
	case "emails":
		// The member's address: the one Latchkey keeps and signs in
		// with, as Okta's and Entra's lookups have always matched.
		if p.sub == "" || p.sub == "value" {
			return attrSpec{kind: kindText, expr: "m.email_address", fold: foldGo}, nil
		}
		vs, err := u.values(attrPath{attr: p.attr})
		return subOf(vs, err, p)
	case "name":
		if k, ok := nameKeys[p.sub]; ok {
			return u.stored("name", k), nil
		}
		if p.sub == "" {
			return attrSpec{}, errNotFilterable(p)
		}
		return attrSpec{}, errUnknownAttr
	case "meta":
		return metaAttr(p, "r")
	case "addresses":
		// An address has no value to compare as a whole.
		if p.sub == "" {
			return attrSpec{}, errInvalidFilter("Name a sub-attribute of addresses to filter on, as in addresses.locality.")
		}
	}
	if _, ok := userValues[p.attr]; ok || notFilterable[p.attr] {
		vs, err := u.values(p) // p.sub is resolved below, in the set
		return subOf(vs, err, p)
	}
	if k, ok := userTextKeys[p.attr]; ok {
		return plain(p, u.stored(k))
	}
	return attrSpec{}, errUnknownAttr
}

// userValues are the User's multi-valued attributes a value filter can
// see, by their lowered names: the key they are stored under in
// r.attributes and their sub-attributes (lowered name to stored key),
// each text and not caseExact, as /Schemas publishes them, but primary,
// a boolean.
var userValues = map[string]struct {
	key  string
	subs map[string]string
}{
	"emails":       {"emails", multiSubs},
	"entitlements": {"entitlements", multiSubs},
	"roles":        {"roles", multiSubs},
	"addresses": {"addresses", map[string]string{"formatted": "formatted", "streetaddress": "streetAddress",
		"locality": "locality", "region": "region", "postalcode": "postalCode", "country": "country", "type": "type",
		"primary": "primary"}},
}

var multiSubs = map[string]string{"value": "value", "type": "type", "primary": "primary"}

// values is emails[...], addresses[...], entitlements[...] and roles[...]:
// the values the identity provider sent, as the User resource shows them,
// read from the folded copy of the stored attributes (foldedAttributes).
// ims and photos are not filterable, like phoneNumbers, and
// x509Certificates' binary values are no text to compare.
func (u userAttrs) values(p attrPath) (valueSet, error) {
	if p.urn != "" && p.urn != urnUser {
		return valueSet{}, errUnknownAttr
	}
	set, ok := userValues[p.attr]
	switch {
	case ok:
	case notFilterable[p.attr]:
		return valueSet{}, errNotFilterable(p)
	default:
		return valueSet{}, notMultiValued(u, p)
	}
	// set.key and the sub-attributes' keys are constants of the table
	// above, never user input.
	var exists string
	var field func(string) string
	var primary string
	if u.d == store.Postgres {
		exists = `EXISTS (SELECT 1 FROM jsonb_array_elements(COALESCE(CAST(r.attributes_folded AS jsonb) -> '` + set.key +
			`', CAST('[]' AS jsonb))) AS e(v) WHERE %s)`
		field = func(k string) string { return "COALESCE(e.v ->> '" + k + "', '')" }
		primary = "COALESCE(e.v ->> 'primary', '') = 'true'"
	} else {
		exists = `EXISTS (SELECT 1 FROM json_each(r.attributes_folded, '$.` + set.key + `') AS e WHERE %s)`
		field = func(k string) string { return "COALESCE(json_extract(e.value, '$." + k + "'), '')" }
		primary = "COALESCE(json_extract(e.value, '$.primary'), 0) = 1"
	}
	return valueSet{exists: exists, sub: func(name string) (attrSpec, error) {
		key, ok := set.subs[name]
		switch {
		case !ok:
			return attrSpec{}, errUnknownAttr
		case key == "primary":
			return attrSpec{kind: kindBool, expr: primary}, nil
		}
		return attrSpec{kind: kindText, expr: field(key), fold: foldGo}, nil
	}}, nil
}

// notFilterable are the User's multi-valued attributes the schema has
// but a filter cannot use here.
var notFilterable = map[string]bool{"phonenumbers": true, "groups": true, "ims": true, "photos": true,
	"x509certificates": true}

// groupAttrs resolves Group attributes over scim_groups g.
type groupAttrs struct{ d store.Dialect }

func (g groupAttrs) attr(p attrPath) (attrSpec, error) {
	if p.urn != "" && p.urn != urnGroup {
		return attrSpec{}, errUnknownAttr
	}
	switch p.attr {
	case "id":
		return plain(p, attrSpec{kind: kindText, expr: "g.group_id"})
	case "displayname":
		return plain(p, attrSpec{kind: kindText, expr: "g.display_name_key", fold: foldGo})
	case "externalid":
		return plain(p, attrSpec{kind: kindText, expr: "g.external_id"})
	case "members":
		vs, err := g.values(attrPath{attr: p.attr})
		return subOf(vs, err, p)
	case "meta":
		return metaAttr(p, "g")
	}
	return attrSpec{}, errUnknownAttr
}

// values is members[...]: the group's members by user id (value).
// members.value is not caseExact in the published schema; member ids are
// ids.New's, lower-case ASCII, so the column is its own fold.
func (g groupAttrs) values(p attrPath) (valueSet, error) {
	if p.urn != "" && p.urn != urnGroup {
		return valueSet{}, errUnknownAttr
	}
	if p.attr != "members" {
		return valueSet{}, notMultiValued(g, p)
	}
	return valueSet{
		exists: `EXISTS (SELECT 1 FROM scim_group_members gm WHERE gm.group_id = g.group_id AND (%s))`,
		sub: func(name string) (attrSpec, error) {
			switch name {
			case "value":
				return attrSpec{kind: kindText, expr: "gm.member_id", fold: foldGo}, nil
			case "display":
				return attrSpec{}, errNotFilterable(attrPath{attr: "members", sub: name})
			}
			return attrSpec{}, errUnknownAttr
		},
	}, nil
}

// notMultiValued refuses a value filter on an attribute the schema has
// but that has no values to filter (userName[...]); an unknown one
// matches nothing.
func notMultiValued(res resolver, p attrPath) error {
	if _, err := res.attr(p); errors.Is(err, errUnknownAttr) {
		return errUnknownAttr
	}
	return errInvalidFilter("A value filter applies to a multi-valued attribute; " + p.String() + " is not one.")
}
