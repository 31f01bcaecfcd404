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
