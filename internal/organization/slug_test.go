package organization

import (
	"regexp"
	"strings"
	"testing"
)

// The written-out rule accepts exactly what the regular expression it
// replaced accepts.
func TestValidSlugIsTheSlugRule(t *testing.T) {
	rule := regexp.MustCompile(`^[a-z0-9._~-]{2,128}$`)
	cases := []string{"", "a", "ab", "acme-corp", "a.b_c~d", "Acme", "a b", "a/b", "ab\n", "\nab", "é1",
		strings.Repeat("a", 128), strings.Repeat("a", 129)}
	for c := 0; c < 256; c++ {
		cases = append(cases, "a"+string(rune(c)), "a"+string([]byte{byte(c)}))
	}
	for _, s := range cases {
		if got, want := validSlug(s), rule.MatchString(s); got != want {
			t.Errorf("validSlug(%q) = %v, the rule says %v", s, got, want)
		}
	}
}
