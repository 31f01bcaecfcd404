package httpapi_test

import (
	"io"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/latchkey/latchkey/internal/httpapi"
)

// The tap leaves the body as the handler would read it, and reports only
// the top-level names of a JSON object, as far as it kept: never a value,
// never a nested name.
func TestBodyTapNamesTopLevelFields(t *testing.T) {
	long := strings.Repeat("k", 100)
	for _, c := range []struct {
		body string
		keep int
		want []string
	}{
		{`{"mfa_policy":"REQUIRED_FOR_ALL","email_address":"a@b.test","trusted_metadata":{"inner":1},"mfa_policy":"x"}`, 1 << 10,
			[]string{"email_address", "mfa_policy", "trusted_metadata"}},
		{`{"a":1,"b":{"c":[1,2,3]},"d":"secret-value"}`, 12, []string{"a", "b"}}, // cut inside b's value
		{`["not","an","object"]`, 1 << 10, nil},
		{`not json`, 1 << 10, nil},
		{``, 1 << 10, nil},
		{`{"` + long + `":1}`, 1 << 10, []string{long[:64]}},
	} {
		r := httptest.NewRequest("PUT", "/x", strings.NewReader(c.body))
		tap := httpapi.TapBody(r, c.keep)
		read, err := io.ReadAll(r.Body)
		if err != nil || string(read) != c.body {
			t.Fatalf("the handler read %q (%v), sent %q", read, err, c.body)
		}
		if got := tap.FieldNames(); !slices.Equal(got, c.want) {
			t.Errorf("%q kept %d: names %q, want %q", c.body, c.keep, got, c.want)
		}
	}
}
