package organization

import (
	"encoding/json"
	"errors"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/latchkey/latchkey/internal/apierr"
)

// FuzzSlug: a slug ValidateSlug accepts needs no escaping in a URL path or
// query (slug_pattern URLs embed it raw), and SlugFromName only ever
// produces lowercase letters, digits and single inner dashes.
func FuzzSlug(f *testing.F) {
	for _, s := range []string{"acme", "Acme Corp.", "a", "ÀÉÎ Ünïcödé", "--x--", "a/../b", "x%00y", strings.Repeat("z", 200)} {
		f.Add(s)
	}
	derived := regexp.MustCompile(`^([a-z0-9]+(-[a-z0-9]+)*)?$`)
	f.Fuzz(func(t *testing.T, in string) {
		if err := ValidateSlug(in); err == nil {
			if url.PathEscape(in) != in || url.QueryEscape(in) != in || len(in) < 2 || len(in) > 128 {
				t.Fatalf("ValidateSlug accepted %q", in)
			}
		} else if !apierr.Is(err, apierr.InvalidOrganizationSlug) {
			t.Fatalf("ValidateSlug(%q): %v", in, err)
		}
		if s := SlugFromName(in); !derived.MatchString(s) {
			t.Fatalf("SlugFromName(%q) = %q", in, s)
		}
	})
}

// FuzzSearchQuery compiles arbitrary search queries (organization and
// member search filters): refusals are 4xx catalogue errors, and what
// compiles carries every value as a $N argument, never as SQL text.
func FuzzSearchQuery(f *testing.F) {
	for _, s := range []string{
		`{"operator":"AND","operands":[{"filter_name":"organization_slugs","filter_value":["acme","x'); DROP TABLE x;--"]}]}`,
		`{"operator":"or","operands":[{"filter_name":"member_email_fuzzy","filter_value":"%_\\"},{"filter_name":"allowed_domain_fuzzy","filter_value":"a\",b"}]}`,
		`{"operator":"AND","operands":[{"filter_name":"email_jit_provisioning","filter_value":"RESTRICTED"},{"filter_name":"mfa_policy","filter_value":["x"]}]}`,
		`{"operator":"OR","operands":[{"filter_name":"member_roles","filter_value":["stytch_admin"]},{"filter_name":"statuses","filter_value":["active"]}]}`,
		`{"operator":"AND","operands":[{"filter_name":"member_is_breakglass","filter_value":true},{"filter_name":"member_mfa_phone_numbers","filter_value":["+1"]}]}`,
		`{"operator":"XOR","operands":[{"filter_name":"nope","filter_value":null}]}`,
		`{"operands":[{"filter_name":"organization_ids","filter_value":{}}]}`,
	} {
		f.Add(s, true)
		f.Add(s, false)
	}
	literals := regexp.MustCompile(`'deleted'|''|'\\'`)
	f.Fuzz(func(t *testing.T, raw string, members bool) {
		var q Query
		if json.Unmarshal([]byte(raw), &q) != nil {
			return
		}
		filters := orgFilters
		if members {
			filters = memberFilters
		}
		w := &sqlWhere{}
		sql, err := compileQuery(w, &q, filters)
		if err != nil {
			var e *apierr.Error
			if !errors.As(err, &e) || e.Status != 400 {
				t.Fatalf("compileQuery(%s): %v", raw, err)
			}
			return
		}
		if rest := literals.ReplaceAllString(sql, ""); strings.ContainsAny(rest, "';\"") || strings.Contains(rest, "--") {
			t.Fatalf("compileQuery(%s) put text into the SQL: %s", raw, sql)
		}
		for i := range w.args {
			if !regexp.MustCompile(`\$` + strconv.Itoa(i+1) + `\b`).MatchString(sql) {
				t.Fatalf("compileQuery(%s): argument $%d unused in %s", raw, i+1, sql)
			}
		}
		if regexp.MustCompile(`\$` + strconv.Itoa(len(w.args)+1) + `\b`).MatchString(sql) {
			t.Fatalf("compileQuery(%s): placeholder past the arguments in %s", raw, sql)
		}
	})
}
