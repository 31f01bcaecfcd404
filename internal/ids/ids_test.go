package ids

import "testing"

// Is tells an id from a slug or external id by its spelling alone.
func TestIs(t *testing.T) {
	const u = "2f1c0e6a-8b9d-4c3e-a1f2-0123456789ab"
	for _, c := range []struct {
		kind, s string
		want    bool
	}{
		{"organization", New("organization", Test), true},
		{"member", New("member", Live), true},
		{"organization", "organization-test-" + u, true},
		{"organization", "organization-prod-" + u, false},      // unknown env
		{"organization", "organization-test-" + u[:35], false}, // short uuid
		{"organization", "organization-test-" + u + "x", false},
		{"organization", "organization-test-" + u[:35] + "g", false}, // not hex
		{"organization", "organization-acme", false},                 // a slug
		{"organization", "member-test-" + u, false},                  // another kind
		{"member", "member-session-test-" + u, false},                // a session id
		{"member", "emp-1", false},
		{"member", "", false},
	} {
		if got := Is(c.kind, c.s); got != c.want {
			t.Errorf("Is(%q, %q) = %v, want %v", c.kind, c.s, got, c.want)
		}
	}
}

// Unreserved is RFC 3986's unreserved set, byte by byte.
func TestUnreserved(t *testing.T) {
	for s, want := range map[string]bool{
		"": true, "AZaz09-._~": true, "..": true,
		"a b": false, "a:b": false, "a/b": false, "a%2e": false, "a+b": false, "ä": false, "a\u202e": false, "a\x00": false,
	} {
		if got := Unreserved(s); got != want {
			t.Errorf("Unreserved(%q) = %v, want %v", s, got, want)
		}
	}
}
