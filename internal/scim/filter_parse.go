package scim

import (
	"encoding/json"
	"strings"
	"unicode/utf8"
)

// The filter grammar of RFC 7644 3.4.2.2, parsed into a small tree that
// filter.go turns into SQL. A filter is user input sent on every list
// request, so the parser bounds what it accepts: the text's length, the
// nesting of parentheses, not and value filters (the only recursion), and
// the number of comparisons. And/or chains are read in a loop and kept
// n-ary, so a long chain adds no depth.
const (
	maxFilterLen   = 2048
	maxFilterDepth = 8
	maxFilterTerms = 32
)

// nodeKind is what a filter node is.
type nodeKind int

const (
	nodeAnd nodeKind = iota // kids all hold
	nodeOr                  // a kid holds
	nodeNot                 // kids[0] does not hold
	nodeCmp                 // path op value (op "pr": path present)
	nodeVal                 // path[kids[0]]: a value of path satisfies kids[0]
)

// attrPath is an attribute path, lowercased: an optional schema URN, the
// attribute, and an optional sub-attribute.
type attrPath struct{ urn, attr, sub string }

func (p attrPath) String() string {
	s := p.attr
	if p.sub != "" {
		s += "." + p.sub
	}
	if p.urn != "" {
		s = p.urn + ":" + s
	}
	return s
}

// compValue is a comparison's value: a string, bool, float64 or nil (null).
type compValue struct{ v any }

// filterNode is one node of a parsed filter.
type filterNode struct {
	kind  nodeKind
	kids  []*filterNode
	path  attrPath
	op    string // eq ne co sw ew gt ge lt le pr, lowercased
	value compValue
}

var compareOps = map[string]bool{"eq": true, "ne": true, "co": true, "sw": true, "ew": true, "gt": true, "ge": true,
	"lt": true, "le": true}

// token is a lexical token: one of ( ) [ ], a quoted string (its JSON
// text), or a word (an attribute path, operator, keyword or literal).
type token struct {
	text   string
	quoted bool
	pos    int
}

// lexFilter splits a filter into tokens. Whitespace only separates.
func lexFilter(f string) ([]token, error) {
	var out []token
	for i := 0; i < len(f); {
		c := f[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			i++
		case c == '(' || c == ')' || c == '[' || c == ']':
			out = append(out, token{text: f[i : i+1], pos: i})
			i++
		case c == '"':
			j := i + 1
			for j < len(f) && f[j] != '"' {
				if f[j] == '\\' {
					j++
				}
				j++
			}
			if j >= len(f) {
				return nil, errInvalidFilter("A quoted value in the filter is not closed.")
			}
			out = append(out, token{text: f[i : j+1], quoted: true, pos: i})
			i = j + 1
		default:
			j := i
			for j < len(f) && !strings.ContainsRune(" \t\n\r()[]\"", rune(f[j])) {
				j++
			}
			out = append(out, token{text: f[i:j], pos: i})
			i = j
		}
	}
	return out, nil
}

// filterParser is a recursive descent parser over the tokens.
type filterParser struct {
	toks  []token
	i     int
	depth int
	terms int
}

// parseFilter parses a filter; nil for an empty one. Every refusal is
// invalidFilter with a detail saying what was wrong.
func parseFilter(f string) (*filterNode, error) {
	if len(f) > maxFilterLen {
		return nil, errInvalidFilter("The filter is too long (at most 2048 bytes).")
	}
	if !utf8.ValidString(f) {
		return nil, errInvalidFilter("The filter is not valid UTF-8.")
	}
	toks, err := lexFilter(f)
	if err != nil {
		return nil, err
	}
	if len(toks) == 0 {
		return nil, nil
	}
	p := &filterParser{toks: toks}
	n, err := p.or(false)
	if err != nil {
		return nil, err
	}
	if t, ok := p.peek(); ok {
		return nil, errInvalidFilter("Unexpected " + quoteTok(t) + " in the filter.")
	}
	return n, nil
}

func quoteTok(t token) string { return "\"" + t.text + "\"" }

func (p *filterParser) peek() (token, bool) {
	if p.i < len(p.toks) {
		return p.toks[p.i], true
	}
	return token{}, false
}

// word reports whether the next token is the unquoted keyword kw.
func (p *filterParser) word(kw string) bool {
	t, ok := p.peek()
	return ok && !t.quoted && strings.EqualFold(t.text, kw)
}

func (p *filterParser) expect(s string) error {
	t, ok := p.peek()
	if !ok || t.quoted || t.text != s {
		return errInvalidFilter("The filter is missing a \"" + s + "\".")
	}
	p.i++
	return nil
}

// nest enters one level of parentheses, not or value filter.
func (p *filterParser) nest() error {
	if p.depth++; p.depth > maxFilterDepth {
		return errInvalidFilter("The filter is nested too deeply (at most 8 levels).")
	}
	return nil
}

// or parses `and-expression *("or" and-expression)`. inVal is set inside a
// value filter's brackets, where another value filter may not appear
// (RFC 7644 erratum 4690).
func (p *filterParser) or(inVal bool) (*filterNode, error) {
	return p.chain(nodeOr, "or", func() (*filterNode, error) {
		return p.chain(nodeAnd, "and", func() (*filterNode, error) { return p.unary(inVal) })
	})
}

// chain reads operands joined by kw into one n-ary node; not lies
// tighter than and, and than or (RFC 7644 3.4.2.2, Table 4).
func (p *filterParser) chain(kind nodeKind, kw string, operand func() (*filterNode, error)) (*filterNode, error) {
	n, err := operand()
	if err != nil {
		return nil, err
	}
	if !p.word(kw) {
		return n, nil
	}
	out := &filterNode{kind: kind, kids: []*filterNode{n}}
	for p.word(kw) {
		p.i++
		k, err := operand()
		if err != nil {
			return nil, err
		}
		out.kids = append(out.kids, k)
	}
	return out, nil
}

// unary parses `not ( filter )`, `( filter )` or an attribute expression.
func (p *filterParser) unary(inVal bool) (*filterNode, error) {
	negate := false
	if p.word("not") && p.i+1 < len(p.toks) && p.toks[p.i+1].text == "(" && !p.toks[p.i+1].quoted {
		negate = true
		p.i++
	}
	if t, ok := p.peek(); ok && !t.quoted && t.text == "(" {
		p.i++
		if err := p.nest(); err != nil {
			return nil, err
		}
		n, err := p.or(inVal)
		if err != nil {
			return nil, err
		}
		if err := p.expect(")"); err != nil {
			return nil, err
		}
		p.depth--
		if negate {
			n = &filterNode{kind: nodeNot, kids: []*filterNode{n}}
		}
		return n, nil
	}
	return p.attrExp(inVal)
}

// attrExp parses `path pr`, `path op value` or a value filter
// `path[filter]`, optionally followed, as identity providers send it, by
// `.sub op value` (emails[type eq "work"].value eq "a@b.c"), which is read
// as path[filter and sub op value].
func (p *filterParser) attrExp(inVal bool) (*filterNode, error) {
	t, ok := p.peek()
	if !ok {
		return nil, errInvalidFilter("The filter ends where an attribute was expected.")
	}
	if t.quoted || strings.ContainsAny(t.text, "()[]") {
		return nil, errInvalidFilter("Expected an attribute name at " + quoteTok(t) + ".")
	}
	p.i++
	path, err := parseAttrPath(t.text)
	if err != nil {
		return nil, err
	}
	if nt, ok := p.peek(); ok && !nt.quoted && nt.text == "[" {
		if inVal {
			return nil, errInvalidFilter("A value filter cannot hold another value filter.")
		}
		if path.sub != "" {
			return nil, errInvalidFilter("A value filter applies to an attribute, not to the sub-attribute " + path.String() + ".")
		}
		p.i++
		if err := p.nest(); err != nil {
			return nil, err
		}
		inner, err := p.or(true)
		if err != nil {
			return nil, err
		}
		if err := p.expect("]"); err != nil {
			return nil, err
		}
		p.depth--
		n := &filterNode{kind: nodeVal, path: path, kids: []*filterNode{inner}}
		if st, ok := p.peek(); ok && !st.quoted && strings.HasPrefix(st.text, ".") {
			p.i++
			sub, err := parseAttrPath(st.text[1:])
			if err != nil || sub.sub != "" || sub.urn != "" {
				return nil, errInvalidFilter("Expected a sub-attribute after the value filter, not " + quoteTok(st) + ".")
			}
			cmp, err := p.comparison(attrPath{attr: sub.attr})
			if err != nil {
				return nil, err
			}
			n.kids[0] = &filterNode{kind: nodeAnd, kids: []*filterNode{inner, cmp}}
		}
		return n, nil
	}
	return p.comparison(path)
}

// comparison parses `pr` or `op value` after path.
func (p *filterParser) comparison(path attrPath) (*filterNode, error) {
	if p.terms++; p.terms > maxFilterTerms {
		return nil, errInvalidFilter("The filter has too many comparisons (at most 32).")
	}
	t, ok := p.peek()
	if !ok || t.quoted {
		return nil, errInvalidFilter("Expected an operator after " + path.String() + ".")
	}
	op := strings.ToLower(t.text)
	p.i++
	if op == "pr" {
		return &filterNode{kind: nodeCmp, path: path, op: op}, nil
	}
	if !compareOps[op] {
		return nil, errInvalidFilter("Unknown operator " + quoteTok(t) + " (eq, ne, co, sw, ew, gt, ge, lt, le and pr are).")
	}
	vt, ok := p.peek()
	if !ok {
		return nil, errInvalidFilter("Expected a value after " + path.String() + " " + op + ".")
	}
	p.i++
	v, err := parseCompValue(vt)
	if err != nil {
		return nil, err
	}
	return &filterNode{kind: nodeCmp, path: path, op: op, value: v}, nil
}

// parseCompValue reads a value: a JSON string, true, false, null or a
// JSON number.
func parseCompValue(t token) (compValue, error) {
	if t.quoted {
		var s string
		if err := json.Unmarshal([]byte(t.text), &s); err != nil {
			return compValue{}, errInvalidFilter("The filter value " + t.text + " is not a valid JSON string.")
		}
		// JSON decoding turns \u0000 into a NUL the raw query's checks
		// never saw; PostgreSQL refuses it as a parameter (SQLite would
		// just match nothing). Refused alike on both, as readJSON does
		// bodies.
		if strings.ContainsRune(s, 0) || !utf8.ValidString(s) {
			return compValue{}, errInvalidFilter("The filter value contains a NUL character or invalid UTF-8.")
		}
		return compValue{s}, nil
	}
	switch strings.ToLower(t.text) {
	case "true":
		return compValue{true}, nil
	case "false":
		return compValue{false}, nil
	case "null":
		return compValue{nil}, nil
	}
	var num json.Number
	if err := json.Unmarshal([]byte(t.text), &num); err == nil {
		if f, err := num.Float64(); err == nil {
			return compValue{f}, nil
		}
	}
	return compValue{}, errInvalidFilter("The filter value " + quoteTok(t) + " must be a quoted string, true, false, null or a number.")
}

// parseAttrPath reads `[URN ":"] ATTRNAME ["." subAttr]`, lowercased
// (attribute names are case-insensitive, RFC 7643 2.1). The URN is the
// text up to the last colon; the attribute's own name has no colon.
func parseAttrPath(s string) (attrPath, error) {
	var p attrPath
	name := s
	if i := strings.LastIndexByte(s, ':'); i >= 0 {
		p.urn, name = strings.ToLower(s[:i]), s[i+1:]
		if !strings.HasPrefix(p.urn, "urn:") {
			return p, errInvalidFilter("The attribute " + s + " has a schema prefix that is not a URN.")
		}
	}
	attr, sub, hasSub := strings.Cut(name, ".")
	if !attrName(attr) || (hasSub && !attrName(sub)) {
		return p, errInvalidFilter("\"" + s + "\" is not an attribute path.")
	}
	p.attr, p.sub = strings.ToLower(attr), strings.ToLower(sub)
	return p, nil
}

// attrName is RFC 7644's ATTRNAME: ALPHA *(ALPHA / DIGIT / "-" / "_"),
// with "$ref" allowed as RFC 7643 names it.
func attrName(s string) bool {
	if s == "$ref" {
		return true
	}
	if s == "" || !isAlpha(s[0]) {
		return false
	}
	for i := 1; i < len(s); i++ {
		if c := s[i]; !isAlpha(c) && !(c >= '0' && c <= '9') && c != '-' && c != '_' {
			return false
		}
	}
	return true
}

func isAlpha(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }
