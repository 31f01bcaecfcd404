package phone

import (
	"strings"
	"testing"
)

// FuzzNormalize: an accepted number is E.164 ("+" and at most 15 digits)
// and a fixed point of Normalize; a refusal is one of the two catalogued
// phone errors.
func FuzzNormalize(f *testing.F) {
	for _, s := range []string{"+1 (415) 555-2671", "+44 20 7946 0958", "+80012345678", "4155552671", "+",
		"+1\x00415", "+999 123", "+33 6 12 34 56 78", "+" + strings.Repeat("9", 70), "+１４１５５５５２６７１"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		out, err := Normalize(in)
		if err != nil {
			if s := err.Error(); !strings.Contains(s, "invalid_phone_number") {
				t.Fatalf("Normalize(%q): %v", in, err)
			}
			return
		}
		if len(out) < 3 || len(out) > 16 || out[0] != '+' ||
			strings.IndexFunc(out[1:], func(r rune) bool { return r < '0' || r > '9' }) >= 0 {
			t.Fatalf("Normalize(%q) = %q is not E.164", in, out)
		}
		if again, err := Normalize(out); err != nil || again != out {
			t.Fatalf("Normalize is not idempotent on %q: %q, %v", out, again, err)
		}
	})
}
