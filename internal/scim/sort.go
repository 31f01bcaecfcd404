package scim

import (
	"net/http"
	"strings"

	"github.com/latchkey/latchkey/internal/store"
)

// sortKey is an attribute a list can be sorted by: its column, and
// whether it is text (which may be empty, and is ordered by code point).
type sortKey struct {
	col  string
	text bool
}

// userSortKeys and groupSortKeys are the sortBy attributes (lowercased
// paths). userName and displayName sort by their folded keys, as they
// compare (caseExact false); emails by the member's address, the one a
// filter on emails matches.
var (
	userSortKeys = map[string]sortKey{"id": {"r.member_id", true}, "username": {"r.user_name_key", true},
		"externalid": {"r.external_id", true}, "emails": {"m.email_address", true}, "emails.value": {"m.email_address", true},
		"meta.created": {"r.created_at", false}, "meta.lastmodified": {"r.updated_at", false}}
	groupSortKeys = map[string]sortKey{"id": {"g.group_id", true}, "displayname": {"g.display_name_key", true},
		"externalid": {"g.external_id", true}, "meta.created": {"g.created_at", false}, "meta.lastmodified": {"g.updated_at", false}}
)

// orderBy is a list's ORDER BY for sortBy and sortOrder (RFC 7644
// 3.4.2.3), with the resource id (idCol) breaking ties so that pages do
// not overlap or skip; without sortBy, creation order (createdCol) as
// always. A resource with no value for the attribute (an empty
// externalId) comes last ascending and first descending, as the RFC asks.
func orderBy(r *http.Request, d store.Dialect, keys map[string]sortKey, urn, createdCol, idCol string) (string, error) {
	qv := r.URL.Query()
	by := strings.TrimSpace(qv.Get("sortBy"))
	dir := "ASC"
	switch strings.ToLower(strings.TrimSpace(qv.Get("sortOrder"))) {
	case "", "ascending":
	case "descending":
		dir = "DESC"
	default:
		return "", errInvalidValue("sortOrder must be ascending or descending.")
	}
	if by == "" {
		return " ORDER BY " + createdCol + ", " + idCol, nil
	}
	refused := errInvalidValue("The list cannot be sorted by " + by + ".")
	p, err := parseAttrPath(by)
	if err != nil || (p.urn != "" && p.urn != urn) {
		return "", refused
	}
	name := p.attr
	if p.sub != "" {
		name += "." + p.sub
	}
	k, ok := keys[name]
	if !ok {
		return "", refused
	}
	collate := ""
	if d == store.Postgres {
		collate = ` COLLATE "C"` // code point order, as SQLite's
	}
	order := " ORDER BY "
	if k.text {
		order += "CASE WHEN " + k.col + " = '' THEN 1 ELSE 0 END " + dir + ", " + k.col + collate + " " + dir + ", "
	} else {
		order += k.col + " " + dir + ", "
	}
	return order + idCol + collate + " " + dir, nil
}
