package scim

import (
	"encoding/json"
	"strings"
	"unicode/utf8"

	"github.com/latchkey/latchkey/internal/emailaddr"
)

// filterExpr is the one filter form identity providers send when they
// look a resource up (RFC 7644 3.4.2.2): attribute eq value, where the
// attribute may carry a value filter (emails[type eq "work"].value).
type filterExpr struct {
	attr  string // lowercased attribute path without the value filter
	value string
}

// parseFilter reads `path eq "value"`. Other operators and logical
// combinations are invalidFilter: an identity provider that gets one
// back falls back to listing.
func parseFilter(f string) (*filterExpr, error) {
	f = strings.TrimSpace(f)
	if f == "" {
		return nil, nil
	}
	// The path ends at the first space outside brackets and quotes.
	depth, inQuote, end := 0, false, -1
	for i := 0; i < len(f) && end < 0; i++ {
		switch c := f[i]; {
		case c == '"' && (i == 0 || f[i-1] != '\\'):
			inQuote = !inQuote
		case inQuote:
		case c == '[':
			depth++
		case c == ']':
			depth--
		case c == ' ' && depth == 0:
			end = i
		}
	}
	if end < 0 {
		return nil, errInvalidFilter("The filter must be of the form attribute eq \"value\".")
	}
	path := f[:end]
	op, rest, ok := strings.Cut(strings.TrimSpace(f[end:]), " ")
	if !ok || !strings.EqualFold(op, "eq") {
		return nil, errInvalidFilter("Only the eq operator is supported.")
	}
	var value string
	if err := json.Unmarshal([]byte(strings.TrimSpace(rest)), &value); err != nil {
		return nil, errInvalidFilter("The filter value must be a quoted string.")
	}
	// The value is JSON-decoded, so \u0000 becomes a NUL the raw query's
	// checks never saw; PostgreSQL refuses it as a parameter (SQLite would
	// just match nothing). Refused alike on both, as readJSON does bodies.
	if strings.ContainsRune(value, 0) || !utf8.ValidString(value) {
		return nil, errInvalidFilter("The filter value contains a NUL character or invalid UTF-8.")
	}
	// emails[type eq "work"].value: the value filter narrows which email,
	// and any of a member's addresses is its one address here.
	if i := strings.IndexByte(path, '['); i >= 0 {
		j := strings.LastIndexByte(path, ']')
		if j < i {
			return nil, errInvalidFilter("The attribute's value filter is not closed.")
		}
		path = path[:i] + path[j+1:]
	}
	return &filterExpr{attr: strings.ToLower(path), value: value}, nil
}

// userFilter turns a Users filter into SQL over scim_registrations r
// joined with members m (parameters from $2).
func userFilter(f string) (string, []any, error) {
	e, err := parseFilter(f)
	if err != nil || e == nil {
		return "", nil, err
	}
	switch e.attr {
	case "username":
		return ` AND r.user_name_key = $2`, []any{strings.ToLower(e.value)}, nil
	case "externalid":
		return ` AND r.external_id = $2`, []any{e.value}, nil
	case "id":
		return ` AND r.member_id = $2`, []any{e.value}, nil
	case "emails", "emails.value":
		addr, err := emailaddr.Normalize(e.value)
		if err != nil {
			return ` AND 1 = 0`, nil, nil
		}
		return ` AND m.email_address = $2`, []any{addr}, nil
	}
	return "", nil, errInvalidFilter("Users can be filtered by userName, externalId, id or emails.")
}

// groupFilter turns a Groups filter into SQL over scim_groups g
// (parameters from $2).
func groupFilter(f string) (string, []any, error) {
	e, err := parseFilter(f)
	if err != nil || e == nil {
		return "", nil, err
	}
	switch e.attr {
	case "displayname":
		return ` AND g.display_name_key = $2`, []any{strings.ToLower(e.value)}, nil
	case "externalid":
		return ` AND g.external_id = $2`, []any{e.value}, nil
	case "id":
		return ` AND g.group_id = $2`, []any{e.value}, nil
	}
	return "", nil, errInvalidFilter("Groups can be filtered by displayName, externalId or id.")
}
