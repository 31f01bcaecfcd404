package scim

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/latchkey/latchkey/internal/store"
)

// show writes a parsed filter as an S-expression, for comparing trees.
func show(n *filterNode) string {
	kids := func() string {
		parts := make([]string, len(n.kids))
		for i, k := range n.kids {
			parts[i] = show(k)
		}
		return strings.Join(parts, " ")
	}
	switch n.kind {
	case nodeAnd:
		return "(and " + kids() + ")"
	case nodeOr:
		return "(or " + kids() + ")"
	case nodeNot:
		return "(not " + kids() + ")"
	case nodeVal:
		return "(" + n.path.String() + "[" + kids() + "])"
	}
	if n.op == "pr" {
		return "(pr " + n.path.String() + ")"
	}
	v := n.value.v
	if s, ok := v.(string); ok {
		v = fmt.Sprintf("%q", s)
	}
	return fmt.Sprintf("(%s %s %v)", n.op, n.path.String(), v)
}

func TestParseFilter(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ in, want string }{
		{``, ``},
		{`   `, ``},
		{`userName eq "bjensen"`, `(eq username "bjensen")`},
		{`USERNAME EQ "B"`, `(eq username "B")`},
		{`userName Pr`, `(pr username)`},
		{`name.familyName co "O'Malley"`, `(co name.familyname "O'Malley")`},
		{`userName eq "a \"quoted\" \u00e9"`, `(eq username "a \"quoted\" é")`},
		{`urn:ietf:params:scim:schemas:core:2.0:User:userName sw "J"`, `(sw urn:ietf:params:scim:schemas:core:2.0:user:username "J")`},
		{`urn:ietf:params:scim:schemas:extension:enterprise:2.0:User:department eq "R&D"`,
			`(eq urn:ietf:params:scim:schemas:extension:enterprise:2.0:user:department "R&D")`},
		{`meta.lastModified gt "2011-05-13T04:42:34Z"`, `(gt meta.lastmodified "2011-05-13T04:42:34Z")`},
		{`active eq true`, `(eq active true)`},
		{`active ne FALSE`, `(ne active false)`},
		{`title eq null`, `(eq title <nil>)`},
		{`x gt 1.5`, `(gt x 1.5)`},
		{`x le -3e2`, `(le x -300)`},
		// Precedence: not binds tighter than and, and than or.
		{`a pr or b pr and c pr`, `(or (pr a) (and (pr b) (pr c)))`},
		{`a pr and b pr or c pr and d pr`, `(or (and (pr a) (pr b)) (and (pr c) (pr d)))`},
		{`(a pr or b pr) and c pr`, `(and (or (pr a) (pr b)) (pr c))`},
		{`not (a pr) and b pr`, `(and (not (pr a)) (pr b))`},
		{`not(a pr or b pr)`, `(not (or (pr a) (pr b)))`},
		{`a pr AND b pr OR c pr`, `(or (and (pr a) (pr b)) (pr c))`},
		{`a pr and b pr and c pr`, `(and (pr a) (pr b) (pr c))`},
		// Value filters, and the form Entra sends.
		{`emails[type eq "work" and value co "@example.com"]`, `(emails[(and (eq type "work") (co value "@example.com"))])`},
		{`emails[type eq "work"].value eq "a@b.c"`, `(emails[(and (eq type "work") (eq value "a@b.c"))])`},
		{`members[value eq "m1"] or not (members pr)`, `(or (members[(eq value "m1")]) (not (pr members)))`},
		{`emails[not (type eq "work")]`, `(emails[(not (eq type "work"))])`},
		// Whitespace only separates; attribute names may look like keywords.
		{"  userName\teq  \"x\"  ", `(eq username "x")`},
		{`not eq "x"`, `(eq not "x")`},
		{`and pr and or pr`, `(and (pr and) (pr or))`},
	} {
		n, err := parseFilter(tc.in)
		if err != nil {
			t.Errorf("parseFilter(%q): %v", tc.in, err)
			continue
		}
		got := ""
		if n != nil {
			got = show(n)
		}
		if got != tc.want {
			t.Errorf("parseFilter(%q) = %s, want %s", tc.in, got, tc.want)
		}
	}
}

func TestParseFilterRefuses(t *testing.T) {
	t.Parallel()
	nest := func(n int) string { return strings.Repeat("(", n) + "a pr" + strings.Repeat(")", n) }
	terms := func(n int) string { return strings.TrimSuffix(strings.Repeat("a pr or ", n), " or ") }
	for _, tc := range []struct{ in, detail string }{
		{`userName`, "operator"},
		{`userName eq`, "value"},
		{`userName eq "x`, "not closed"},
		{`userName eq "x" "y"`, "Unexpected"},
		{`userName eq bjensen`, "quoted string"},
		{`userName like "x"`, "Unknown operator"},
		{`userName eq "\x"`, "JSON string"},
		{`userName eq "a\u0000b"`, "NUL"},
		{`(userName pr`, `missing a ")"`},
		{`userName pr)`, "Unexpected"},
		{`userName pr and`, "ends"},
		{`and`, "operator"},
		{`not userName pr`, "Unknown operator"},
		{`1abc pr`, "not an attribute path"},
		{`a.b.c pr`, "not an attribute path"},
		{`foo:bar pr`, "not a URN"},
		{`emails[type eq "work"`, `missing a "]"`},
		{`emails[type eq "work"] eq "x"`, "Unexpected"},
		{`emails[type[value eq "x"]]`, "cannot hold another"},
		{`emails.value[type eq "x"]`, "sub-attribute"},
		{`emails[type eq "w"].value`, "operator"},
		{`emails[type eq "w"].a.b eq "x"`, "sub-attribute after"},
		{`"userName" eq "x"`, "attribute name"},
		{`[a pr]`, "attribute name"},
		{`()`, "attribute name"},
		{strings.Repeat("a", maxFilterLen+1), "too long"},
		{nest(maxFilterDepth + 1), "too deeply"},
		{`not (` + nest(maxFilterDepth) + `)`, "too deeply"},
		{strings.Repeat("not (", maxFilterDepth+1) + "a pr" + strings.Repeat(")", maxFilterDepth+1), "too deeply"},
		{terms(maxFilterTerms + 1), "too many"},
		{"a pr and " + strings.Repeat("(", 100000), "too long"},
	} {
		_, err := parseFilter(tc.in)
		var se *scimError
		if !errors.As(err, &se) || se.scimType != "invalidFilter" || !strings.Contains(se.detail, tc.detail) {
			t.Errorf("parseFilter(%.60q) = %v, want invalidFilter saying %q", tc.in, err, tc.detail)
		}
	}
	// The limits themselves are accepted.
	for _, in := range []string{nest(maxFilterDepth), terms(maxFilterTerms)} {
		if _, err := parseFilter(in); err != nil {
			t.Errorf("parseFilter(%.60q): %v", in, err)
		}
	}
}

// The SQL side refuses what the schema has but cannot filter, and
// operators that do not fit the attribute's type; attributes the schema
// does not have match nothing.
func TestFilterSQLRefusesAndUnknown(t *testing.T) {
	t.Parallel()
	for _, d := range []store.Dialect{store.SQLite, store.Postgres} {
		for _, f := range []string{`phoneNumbers pr`, `phoneNumbers[type eq "work"]`, `groups.value eq "g"`, `name eq "x"`,
			`meta.location pr`, `meta.created co "2026"`, `meta.created gt "yesterday"`, `meta.created gt 5`, `active gt true`,
			`active eq "maybe"`, `userName eq 5`, `userName gt true`, `userName[value eq "x"]`, `name[givenName eq "x"]`,
			`userName co null`, `urn:ietf:params:scim:schemas:extension:enterprise:2.0:User:manager.value eq "x"`,
			`emails[value eq "x"].type gt 5`, `ims pr`, `photos[type eq "photo"]`, `x509Certificates.value eq "x"`,
			`addresses eq "x"`, `addresses pr`, `roles.primary co "t"`} {
			_, _, err := userFilter(d, f)
			var se *scimError
			if !errors.As(err, &se) || se.scimType != "invalidFilter" {
				t.Errorf("%s: userFilter(%q) = %v, want invalidFilter", d, f, err)
			}
		}
		for _, f := range []string{`members.display eq "x"`, `members[display eq "x"]`, `displayName[value eq "x"]`, `meta pr`} {
			if _, _, err := groupFilter(d, f); err == nil {
				t.Errorf("%s: groupFilter(%q) accepted", d, f)
			}
		}
		for _, f := range []string{`nickNames eq "x"`, `name.nick eq "x"`, `urn:example:ext:1.0:User:badge eq "x"`,
			`emails.display eq "x"`, `userName.sub eq "x"`, `addresses.value eq "x"`, `roles.display eq "x"`} {
			where, args, err := userFilter(d, f)
			if err != nil || where != ` AND (1 = 0)` || len(args) != 0 {
				t.Errorf("%s: userFilter(%q) = %q %v %v, want no match", d, f, where, args, err)
			}
		}
	}
}

// Parameters are numbered from $2 in order, and values never reach the
// SQL text.
func TestFilterSQLParameters(t *testing.T) {
	t.Parallel()
	where, args, err := userFilter(store.Postgres, `userName eq "ADA'--" or (externalId sw "x%_" and emails[type eq "work"])`)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(where, "ADA") || strings.Contains(where, "x%_") || strings.Contains(where, "$5") {
		t.Fatalf("where = %s", where)
	}
	if fmt.Sprint(args) != "[ada'-- x%_ work]" || !strings.Contains(where, "$2") || !strings.Contains(where, "$4") {
		t.Fatalf("where = %s, args = %q", where, args)
	}
}

func FuzzParseFilter(f *testing.F) {
	for _, s := range []string{`userName eq "a"`, `emails[type eq "work" and value co "@x"].value eq "y"`,
		`not (a pr or (b gt 1 and c le null))`, `meta.lastModified gt "2026-01-01T00:00:00Z"`, `members[value eq "m"]`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		n, err := parseFilter(s)
		if err != nil {
			var se *scimError
			if !errors.As(err, &se) || se.scimType != "invalidFilter" {
				t.Fatalf("parseFilter(%q): %v is not invalidFilter", s, err)
			}
			return
		}
		if n != nil && depth(n) > 3*(maxFilterDepth+1)+2 {
			t.Fatalf("parseFilter(%q): depth %d", s, depth(n))
		}
		for _, d := range []store.Dialect{store.SQLite, store.Postgres} {
			_, _, _ = userFilter(d, s)
			_, _, _ = groupFilter(d, s)
		}
	})
}

// depth is a tree's height; each nesting level adds at most and, or and
// not around its content.
func depth(n *filterNode) int {
	d := 0
	for _, k := range n.kids {
		d = max(d, depth(k))
	}
	return d + 1
}
