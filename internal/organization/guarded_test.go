package organization

import "testing"

// An address that differs only in ASCII case is no change, so no step-up;
// one that only Unicode folding matches (the Kelvin sign for K) is a
// change the update refuses later (invalid_email), and is asked a step-up
// first like any other value that does not validate.
func TestChangesGuardedFoldsASCIICaseOnly(t *testing.T) {
	t.Parallel()
	m := &Member{EmailAddress: "kate@acme.test"}
	for addr, want := range map[string]bool{
		"kate@acme.test":      false,
		" KATE@Acme.TEST ":    false,
		"\u212Aate@acme.test": true,
		"kate@acme.te\u017Ft": true,
		"other@acme.test":     true,
	} {
		if got := (MemberUpdate{EmailAddress: &addr}).changesGuarded(m); got != want {
			t.Errorf("changesGuarded(%q) = %v, want %v", addr, got, want)
		}
	}
}
