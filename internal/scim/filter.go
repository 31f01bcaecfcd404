package scim

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/latchkey/latchkey/internal/store"
)

// A parsed filter (filter_parse.go) becomes a SQL condition with numbered
// parameters, on SQLite and PostgreSQL alike. Each resource has a table of
// the attributes it can filter on (userAttr, groupAttr) saying where the
// value lives and how it compares:
//
//   - case: caseExact attributes (id, externalId) compare as stored;
//     the others compare a column that holds the value folded in Go
//     (fold: user_name_key, display_name_key, attributes_folded, the
//     member's normalised address) with the filter value folded the
//     same way. SQL's lower() is never used: SQLite's folds ASCII only
//     and PostgreSQL's follows the database's locale, so the engines
//     would find different users.
//   - co, sw and ew use instr/strpos and substr rather than LIKE, so a %
//     or _ in the value is an ordinary character and SQLite's
//     case-insensitive LIKE cannot loosen a case-exact attribute.
//   - dateTimes (meta.created, meta.lastModified) compare instants: the
//     value is parsed as RFC 3339 and compared with the stored
//     milliseconds cut to the second, the precision a resource shows, so
//     `meta.lastModified gt "<a lastModified the client read>"` does not
//     find the same change again.
//   - an attribute the schema does not define matches nothing (RFC 7644
//     3.4.2.2: a comparison with an unassigned attribute is false), while
//     one the schema defines that cannot be filtered here, or an operator
//     that makes no sense for its type, is invalidFilter.

// attrKind is an attribute's type as a filter compares it.
type attrKind int

const (
	kindText attrKind = iota
	kindBool          // expr is a SQL condition
	kindDate          // expr is Unix milliseconds
)

// folding says how a text attribute compares.
type folding int

const (
	foldNone folding = iota // caseExact
	foldGo                  // expr holds fold of the value
)

// attrSpec is how one filterable attribute compares. When exists is set
// the attribute is one sub-attribute of a multi-valued attribute and the
// comparison holds when it holds for one of the values: exists is an
// EXISTS (...) with a %s for the condition.
type attrSpec struct {
	kind   attrKind
	expr   string
	fold   folding
	exists string
}

// valueSet is a multi-valued attribute as a value filter sees it: an
// EXISTS over its values, and the sub-attributes of one value.
type valueSet struct {
	exists string
	sub    func(name string) (attrSpec, error)
}

// resolver finds an attribute's spec, or the value set of a multi-valued
// one (for path[filter]).
type resolver interface {
	attr(p attrPath) (attrSpec, error)
	values(p attrPath) (valueSet, error)
}

// errUnknownAttr marks an attribute the schema does not have: no match.
var errUnknownAttr = errors.New("scim: unknown filter attribute")

func errNotFilterable(p attrPath) error {
	return errInvalidFilter("The attribute " + p.String() + " cannot be used in a filter here.")
}

// sqlFilter turns filter text into ` AND (condition)` and its parameters,
// numbered from $first; "" for an empty filter.
func sqlFilter(d store.Dialect, res resolver, f string, first int) (string, []any, error) {
	n, err := parseFilter(f)
	if err != nil || n == nil {
		return "", nil, err
	}
	c := &compiler{d: d, first: first, res: res}
	cond, err := c.node(n)
	if err != nil {
		return "", nil, err
	}
	return ` AND (` + cond + `)`, c.args, nil
}

// compiler writes one filter's SQL, collecting its parameters.
type compiler struct {
	d     store.Dialect
	first int
	args  []any
	res   resolver
	elem  *valueSet // inside a value filter: the value set's sub-attributes
}

func (c *compiler) text(v string) string {
	c.args = append(c.args, v)
	return "CAST($" + strconv.Itoa(c.first+len(c.args)-1) + " AS TEXT)"
}

func (c *compiler) millis(v int64) string {
	c.args = append(c.args, v)
	return "CAST($" + strconv.Itoa(c.first+len(c.args)-1) + " AS BIGINT)"
}

// node compiles n. The tree's depth is bounded by the parser.
func (c *compiler) node(n *filterNode) (string, error) {
	switch n.kind {
	case nodeAnd, nodeOr:
		sep := " AND "
		if n.kind == nodeOr {
			sep = " OR "
		}
		parts := make([]string, len(n.kids))
		for i, k := range n.kids {
			s, err := c.node(k)
			if err != nil {
				return "", err
			}
			parts[i] = "(" + s + ")"
		}
		return strings.Join(parts, sep), nil
	case nodeNot:
		s, err := c.node(n.kids[0])
		if err != nil {
			return "", err
		}
		return "NOT (" + s + ")", nil
	case nodeVal:
		vs, err := c.res.values(n.path)
		if errors.Is(err, errUnknownAttr) {
			return "1 = 0", nil
		}
		if err != nil {
			return "", err
		}
		inner := &compiler{d: c.d, first: c.first, args: c.args, res: c.res, elem: &vs}
		s, err := inner.node(n.kids[0])
		if err != nil {
			return "", err
		}
		c.args = inner.args
		return fmt.Sprintf(vs.exists, s), nil
	}
	var spec attrSpec
	var err error
	if c.elem != nil {
		if n.path.urn != "" || n.path.sub != "" {
			return "", errInvalidFilter("Inside a value filter, name the sub-attribute alone, not " + n.path.String() + ".")
		}
		spec, err = c.elem.sub(n.path.attr)
	} else {
		spec, err = c.res.attr(n.path)
	}
	if errors.Is(err, errUnknownAttr) {
		return "1 = 0", nil
	}
	if err != nil {
		return "", err
	}
	s, err := c.compare(spec, n)
	if err != nil || spec.exists == "" {
		return s, err
	}
	return fmt.Sprintf(spec.exists, s), nil
}

// present is the condition that the attribute has a value (pr).
func present(spec attrSpec) string {
	if spec.kind == kindText {
		return spec.expr + " <> ''"
	}
	return "1 = 1"
}

// compare compiles one comparison.
func (c *compiler) compare(spec attrSpec, n *filterNode) (string, error) {
	name := n.path.String()
	switch {
	case n.op == "pr":
		return present(spec), nil
	case n.value.v == nil:
		// null stands for "no value" (RFC 7644 3.5.2): eq null is not
		// present, ne null is present.
		switch n.op {
		case "eq":
			return "NOT (" + present(spec) + ")", nil
		case "ne":
			return present(spec), nil
		}
		return "", errInvalidFilter("null can only be compared with eq or ne.")
	}
	switch spec.kind {
	case kindBool:
		b, ok := boolValue(n.value.v)
		if !ok || (n.op != "eq" && n.op != "ne") {
			return "", errInvalidFilter(name + " is a boolean: compare it with eq or ne and true or false.")
		}
		if b == (n.op == "eq") {
			return spec.expr, nil
		}
		return "NOT (" + spec.expr + ")", nil
	case kindDate:
		s, ok := n.value.v.(string)
		if !ok {
			return "", errInvalidFilter(name + " is a dateTime: compare it with a quoted RFC 3339 time.")
		}
		t, err := time.Parse(time.RFC3339Nano, s)
		if err != nil {
			return "", errInvalidFilter(name + " is a dateTime: " + strconv.Quote(s) + " is not an RFC 3339 time.")
		}
		sqlOp, ok := orderOps[n.op]
		if !ok {
			return "", errInvalidFilter(name + " is a dateTime: co, sw and ew do not apply.")
		}
		return "(" + spec.expr + " / 1000) * 1000 " + sqlOp + " " + c.millis(t.UnixMilli()), nil
	}
	s, ok := n.value.v.(string)
	if !ok {
		return "", errInvalidFilter(name + " is a string: compare it with a quoted value.")
	}
	lhs, rhs := spec.expr, ""
	if spec.fold == foldGo {
		rhs = c.text(fold(s))
	} else {
		rhs = c.text(s)
	}
	switch n.op {
	case "co":
		if c.d == store.Postgres {
			return "strpos(" + lhs + ", " + rhs + ") > 0", nil
		}
		return "instr(" + lhs + ", " + rhs + ") > 0", nil
	case "sw":
		return "substr(" + lhs + ", 1, length(" + rhs + ")) = " + rhs, nil
	case "ew":
		return "length(" + lhs + ") >= length(" + rhs + ") AND substr(" + lhs + ", length(" + lhs + ") - length(" + rhs +
			") + 1) = " + rhs, nil
	}
	if c.d == store.Postgres && n.op != "eq" && n.op != "ne" {
		// Order as SQLite does, by code point, not by the database's locale.
		rhs += ` COLLATE "C"`
	}
	return lhs + " " + orderOps[n.op] + " " + rhs, nil
}

var orderOps = map[string]string{"eq": "=", "ne": "<>", "gt": ">", "ge": ">=", "lt": "<", "le": "<="}

// boolValue reads true or false, also spelled as a string ("True"), as
// Microsoft Entra writes booleans.
func boolValue(v any) (bool, bool) {
	switch x := v.(type) {
	case bool:
		return x, true
	case string:
		switch strings.ToLower(x) {
		case "true":
			return true, true
		case "false":
			return false, true
		}
	}
	return false, false
}

// jsonText is the text at keys in the JSON column col ("" when absent).
// keys are constants of the attribute tables, never user input.
func jsonText(d store.Dialect, col string, keys ...string) string {
	if d == store.Postgres {
		return "COALESCE(jsonb_extract_path_text(CAST(" + col + " AS jsonb), '" + strings.Join(keys, "', '") + "'), '')"
	}
	return "COALESCE(json_extract(" + col + `, '$."` + strings.Join(keys, `"."`) + `"'), '')`
}

// userFilter turns a Users filter into SQL over scim_registrations r
// joined with members m (parameters from $2).
func userFilter(d store.Dialect, f string) (string, []any, error) {
	return sqlFilter(d, userAttrs{d}, f, 2)
}

// groupFilter turns a Groups filter into SQL over scim_groups g
// (parameters from $2).
func groupFilter(d store.Dialect, f string) (string, []any, error) {
	return sqlFilter(d, groupAttrs{d}, f, 2)
}

// metaAttr is meta.created and meta.lastModified of a resource whose
// table has created_at and updated_at; meta's other sub-attributes are
// not filterable.
func metaAttr(p attrPath, table string) (attrSpec, error) {
	switch p.sub {
	case "created":
		return attrSpec{kind: kindDate, expr: table + ".created_at"}, nil
	case "lastmodified":
		return attrSpec{kind: kindDate, expr: table + ".updated_at"}, nil
	case "resourcetype", "location", "version", "":
		return attrSpec{}, errNotFilterable(p)
	}
	return attrSpec{}, errUnknownAttr
}

// plain checks that a single-valued, simple attribute has no sub-attribute.
func plain(p attrPath, spec attrSpec) (attrSpec, error) {
	if p.sub != "" {
		return attrSpec{}, errUnknownAttr
	}
	return spec, nil
}

// subOf resolves p.sub in a value set, the whole value meaning "value".
func subOf(vs valueSet, err error, p attrPath) (attrSpec, error) {
	if err != nil {
		return attrSpec{}, err
	}
	name := p.sub
	if name == "" {
		name = "value"
	}
	spec, err := vs.sub(name)
	spec.exists = vs.exists
	return spec, err
}
