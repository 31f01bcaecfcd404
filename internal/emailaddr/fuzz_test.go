package emailaddr

import (
	"strings"
	"testing"
)

// FuzzNormalize: an accepted address is short, plain ASCII, has one "@",
// matches the rule, has a local part whose dots only separate (RFC 5321
// Dot-string) and is a fixed point of Normalize; a refusal is always
// invalid_email.
func FuzzNormalize(f *testing.F) {
	for _, s := range []string{"Ada@Acme.test", " bob+tag@sub.example.co ", "a@b", "\u212aim@x.test", "a@-x.test",
		"a\x00@x.test", "@x.test", ".a@x.test", "a.@x.test", "a..b@x.test", strings.Repeat("a", 250) + "@x.test", "a@b.c\r\nBcc: x@y.test"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		out, err := Normalize(in)
		if err != nil {
			if !strings.Contains(err.Error(), "invalid_email") {
				t.Fatalf("Normalize(%q): %v", in, err)
			}
			return
		}
		if len(out) > 254 || strings.Count(out, "@") != 1 || !pattern.MatchString(out) {
			t.Fatalf("Normalize(%q) accepted %q", in, out)
		}
		if local, _, _ := strings.Cut(out, "@"); strings.HasPrefix(local, ".") || strings.HasSuffix(local, ".") || strings.Contains(local, "..") {
			t.Fatalf("Normalize(%q) accepted the local part %q", in, local)
		}
		// Only ASCII input is accepted: lower-casing must not have made it
		// so (the Kelvin sign would become k).
		for _, c := range []byte(strings.TrimSpace(in)) {
			if c > 0x7e {
				t.Fatalf("Normalize(%q) accepted non-ASCII input as %q", in, out)
			}
		}
		if !Equal(out, strings.TrimSpace(in)) {
			t.Fatalf("Normalize(%q) = %q, which Equal does not match to its input", in, out)
		}
		for _, c := range []byte(out) {
			if c < 0x21 || c > 0x7e || (c >= 'A' && c <= 'Z') {
				t.Fatalf("Normalize(%q) = %q holds byte %#x", in, out, c)
			}
		}
		if again, err := Normalize(out); err != nil || again != out {
			t.Fatalf("Normalize is not idempotent on %q: %q, %v", out, again, err)
		}
		if d := Domain(out); d == "" || strings.Contains(d, "@") {
			t.Fatalf("Domain(%q) = %q", out, d)
		}
	})
}
