package organization

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/latchkey/latchkey/internal/apierr"
	"github.com/latchkey/latchkey/internal/keyset"
	"github.com/latchkey/latchkey/internal/store"
)

// Query is the search query of the API family's organization and member
// searches: operands combined with AND or OR. No query, or no operands,
// means no filtering.
type Query struct {
	Operator string    `json:"operator"`
	Operands []Operand `json:"operands"`
}

// Operand is one filter of a Query.
type Operand struct {
	FilterName  string          `json:"filter_name"`
	FilterValue json.RawMessage `json:"filter_value"`
}

// ResultsMetadata describes a page of search results. NextCursor is null
// on the last page.
type ResultsMetadata struct {
	Total      int     `json:"total"`
	NextCursor *string `json:"next_cursor"`
}

// Paging limits (keyset's, named here for the search parameters' docs).
const (
	DefaultSearchLimit = keyset.DefaultLimit
	MaxSearchLimit     = keyset.MaxLimit
	maxOperands        = 50
	minFuzzyLength     = 3
)

// MaxQueryValues bounds the distinct values of a query's list filters,
// summed over its operands (each operand's repeats count once), and
// maxSearchOrgs the organization_ids of a member search. The vendor states
// no limit; 1,000 is its page maximum, so a longer list of ids is not a
// lookup one page could answer. Each value is one SQL parameter: with the
// organizations and the conditions email role assignments add, a query
// stays far inside SQLite's 32,766 parameters and PostgreSQL's 65,535,
// and the database work is a few index probes per value, not seconds.
const (
	MaxQueryValues = 1000
	maxSearchOrgs  = 1000
)

// maxQueryArgs is the backstop behind MaxQueryValues: the parameters a
// compiled query may carry. Only the member search's email role
// assignments (organizations x assigned domains) can approach it.
const maxQueryArgs = 20000

// sqlWhere accumulates a WHERE clause and its $N arguments.
type sqlWhere struct {
	args    []any
	values  int                      // list values taken so far (MaxQueryValues)
	dialect store.Dialect            // for inJSON
	orgs    map[string]*Organization // member searches: the organizations searched
	// roleHolders lists the members of orgs holding any of roleIDs
	// through an implicit role source (member searches).
	roleHolders func(roleIDs []string) ([]string, error)
}

func (w *sqlWhere) arg(v any) string {
	w.args = append(w.args, v)
	return fmt.Sprintf("$%d", len(w.args))
}

func (w *sqlWhere) in(col string, vals []string) string {
	ps := make([]string, len(vals))
	for i, v := range vals {
		ps[i] = w.arg(v)
	}
	return col + " IN (" + strings.Join(ps, ", ") + ")"
}

// inJSON matches col against a list of any length passed as one JSON
// parameter: for lists the database decides the size of (the members
// holding a role through SSO or SCIM), which one parameter each could
// take past the engines' limits.
func (w *sqlWhere) inJSON(col string, vals []string) string {
	p := w.arg(mustJSON(vals))
	if w.dialect == store.Postgres {
		return col + " IN (SELECT jsonb_array_elements_text(CAST(" + p + " AS jsonb)))"
	}
	return col + " IN (SELECT value FROM json_each(" + p + "))"
}

// contains matches a case-insensitive substring. LIKE is case-sensitive on
// PostgreSQL and not on SQLite, so both sides are lowered explicitly: for
// columns of ASCII or stored lower-cased (slugs, emails, domains, phone
// numbers), where the engines' LOWER() agree. Free text uses
// containsFolded.
func (w *sqlWhere) contains(col, sub string) string {
	return "LOWER(" + col + ") LIKE " + w.arg("%"+store.LikeEscape(strings.ToLower(sub))+"%") + ` ESCAPE '\'`
}

// jsonHas matches a JSON array column (TEXT) holding the string v,
// exactly: values are encoded as the column was, so "a.com" cannot match
// "xa.com", and compared case-sensitively on both engines (holds), so the
// role "Editor" is not "editor".
func (w *sqlWhere) jsonHas(col, v string) string {
	enc, _ := json.Marshal(v)
	return w.holds(col, string(enc))
}

// holds matches a column containing sub, byte for byte. LIKE cannot say
// this portably (SQLite's ignores ASCII case, PostgreSQL's does not), nor
// can a function both engines name alike (instr, strpos); REPLACE is
// case-sensitive on both, and leaves the column unchanged exactly when sub
// does not occur in it.
func (w *sqlWhere) holds(col, sub string) string {
	return "REPLACE(" + col + ", " + w.arg(sub) + ", '') <> " + col
}

// containsFolded matches a column of foldName keys holding the substring
// sub, case-insensitively alike on both engines: both sides are folded
// here, so the database compares folded text only.
func (w *sqlWhere) containsFolded(col, sub string) string {
	return col + " LIKE " + w.arg("%"+store.LikeEscape(foldName(sub))+"%") + ` ESCAPE '\'`
}

// after is the keyset condition for rows after c.
// filterFunc turns one operand's value into a SQL condition.
type filterFunc func(w *sqlWhere, name string, raw json.RawMessage) (string, error)

// compileQuery combines the operands of q with its operator. It returns ""
// when nothing is filtered. Unknown filter names are errors, not ignored,
// so a typo never silently widens a result.
func compileQuery(w *sqlWhere, q *Query, filters map[string]filterFunc) (string, error) {
	if q == nil || len(q.Operands) == 0 {
		return "", nil
	}
	join := " AND "
	switch strings.ToUpper(q.Operator) {
	case "AND":
	case "OR":
		join = " OR "
	default:
		return "", apierr.Invalid("query.operator", "query.operator must be AND or OR.")
	}
	if len(q.Operands) > maxOperands {
		return "", apierr.Invalid("query.operands", fmt.Sprintf("A query takes at most %d operands.", maxOperands))
	}
	conds := make([]string, 0, len(q.Operands))
	for _, op := range q.Operands {
		f, ok := filters[op.FilterName]
		if !ok {
			return "", apierr.Invalid("query.operands", fmt.Sprintf("filter_name %q is not recognized.", op.FilterName)).
				WithDetails(map[string]any{"field": "query.operands", "filter_name": op.FilterName})
		}
		if len(op.FilterValue) == 0 || string(op.FilterValue) == "null" {
			if t, ok := missingFilterValue[op.FilterName]; ok {
				return "", apierr.New(t).WithDetails(map[string]any{"field": "query.operands", "filter_name": op.FilterName})
			}
			return "", filterError(op.FilterName, "filter_value is required.")
		}
		c, err := f(w, op.FilterName, op.FilterValue)
		if err != nil {
			return "", err
		}
		conds = append(conds, "("+c+")")
	}
	if len(w.args) > maxQueryArgs {
		return "", apierr.Invalid("query", "The query expands to too many conditions; split it into several searches.")
	}
	return "(" + strings.Join(conds, join) + ")", nil
}

func filterError(name, msg string) error {
	return apierr.Invalid("query.operands", name+": "+msg).WithDetails(map[string]any{"field": "query.operands", "filter_name": name})
}

// list decodes a non-empty list of non-empty strings, trimmed, folded by
// fold (nil: as sent) and with repeats dropped, and counts it against the
// query's MaxQueryValues, refusing the operand that crosses it.
func (w *sqlWhere) list(name string, raw json.RawMessage, fold func(string) string) ([]string, error) {
	var vs []string
	if err := json.Unmarshal(raw, &vs); err != nil {
		return nil, filterError(name, "filter_value must be a list of strings.")
	}
	if len(vs) == 0 {
		return nil, filterError(name, "filter_value must hold at least one string.")
	}
	seen := make(map[string]bool, len(vs))
	out := vs[:0]
	for _, v := range vs {
		if v = strings.TrimSpace(v); v == "" {
			return nil, filterError(name, "filter_value must not contain empty strings.")
		}
		if fold != nil {
			v = fold(v)
		}
		if !seen[v] {
			seen[v] = true
			out = append(out, v)
		}
	}
	if w.values += len(out); w.values > MaxQueryValues {
		return nil, filterError(name, fmt.Sprintf("A query takes at most %d distinct filter values across its operands.", MaxQueryValues))
	}
	return out, nil
}

// oneOrMany is list for a string or a list of strings (policy filters
// accept both: "RESTRICTED" or ["RESTRICTED", "NOT_ALLOWED"]).
func (w *sqlWhere) oneOrMany(name string, raw json.RawMessage) ([]string, error) {
	var one string
	if json.Unmarshal(raw, &one) == nil {
		return w.list(name, mustRaw([]string{one}), nil)
	}
	return w.list(name, raw, nil)
}

func mustRaw(v any) json.RawMessage {
	b, _ := json.Marshal(v)
	return b
}

// fuzzyValue decodes a substring of at least minFuzzyLength characters
// (after trimming); a shorter one is tooShort, the API family's type for
// that filter of that search.
func fuzzyValue(name string, raw json.RawMessage, tooShort apierr.Type) (string, error) {
	var v string
	if err := json.Unmarshal(raw, &v); err != nil {
		return "", filterError(name, "filter_value must be a string.")
	}
	if v = strings.TrimSpace(v); len([]rune(v)) < minFuzzyLength {
		return "", apierr.New(tooShort).WithDetails(map[string]any{"field": "query.operands", "filter_name": name})
	}
	return v, nil
}

func boolValue(name string, raw json.RawMessage) (bool, error) {
	var v bool
	if err := json.Unmarshal(raw, &v); err != nil {
		return false, filterError(name, "filter_value must be a boolean.")
	}
	return v, nil
}

// anyOf ORs one condition per value as a balanced tree: a chain of a
// thousand ORs is an expression a thousand deep, past SQLite's limit,
// where the tree is ten.
func anyOf(vs []string, cond func(v string) string) string {
	cs := make([]string, len(vs))
	for i, v := range vs {
		cs[i] = cond(v)
	}
	return orTree(cs)
}

func orTree(cs []string) string {
	switch len(cs) {
	case 0:
		return "1 = 0"
	case 1:
		return cs[0]
	}
	return "(" + orTree(cs[:len(cs)/2]) + " OR " + orTree(cs[len(cs)/2:]) + ")"
}

// checkKnown refuses values outside an enumeration.
func checkKnown(name string, vs, known []string) error {
	for _, v := range vs {
		if !slices.Contains(known, v) {
			return filterError(name, fmt.Sprintf("%q is not one of %s.", v, strings.Join(known, ", ")))
		}
	}
	return nil
}

// searchPage reads one page of a search (keyset paging on (created_at,
// id)) with the metadata the API family answers.
func searchPage[T any](ctx context.Context, q store.Querier, spec keyset.Spec[T], w *sqlWhere, where string,
	cursor *string, limit int) ([]T, ResultsMetadata, error) {
	after, err := keyset.Decode(deref(cursor))
	if err != nil {
		return nil, ResultsMetadata{}, err
	}
	if limit, err = keyset.Limit(limit); err != nil {
		return nil, ResultsMetadata{}, err
	}
	page, err := keyset.Read(ctx, q, spec, where, w.args, after, limit)
	if err != nil {
		return nil, ResultsMetadata{}, fmt.Errorf("organization: %w", err)
	}
	return page.Items, ResultsMetadata{Total: page.Total, NextCursor: page.Next}, nil
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
