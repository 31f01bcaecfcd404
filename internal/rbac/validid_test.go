package rbac

import (
	"regexp"
	"strings"
	"testing"
)

// The written-out rule accepts exactly what the regular expression it
// replaced accepts.
func TestValidIDIsTheIDRule(t *testing.T) {
	rule := regexp.MustCompile(`^[A-Za-z0-9_.:*/-]{1,128}$`)
	cases := []string{"", "a", "stytch.member", "acme:read/*", "a b", "a\"b", "a\n", "\na", "é",
		strings.Repeat("Z", 128), strings.Repeat("Z", 129)}
	for c := 0; c < 256; c++ {
		cases = append(cases, string(rune(c)), string([]byte{byte(c)}))
	}
	for _, s := range cases {
		if got, want := validID(s), rule.MatchString(s); got != want {
			t.Errorf("validID(%q) = %v, the rule says %v", s, got, want)
		}
	}
}
