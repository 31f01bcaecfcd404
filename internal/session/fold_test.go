package session

import (
	"bytes"
	"testing"
)

// TestFoldKeyMatchesEncodingJSON: two keys fold alike exactly when
// bytes.EqualFold, the rule encoding/json matches object keys to struct
// fields by, says they are equal: the Kelvin sign is k, the long s is s,
// but the dotless i is not i.
func TestFoldKeyMatchesEncodingJSON(t *testing.T) {
	words := []string{"k", "K", "\u212a", "s", "S", "\u017f", "i", "I", "\u0131", "\u0130", "σ", "Σ", "ς", "ß", "ẞ", "ss",
		"sub", "SUB", "\u017fub", "exp", "EXP", "https://stytch.com/", "HTTPS://\u017fTYTCH.COM/", "\xff", "\ufffd", ""}
	for _, a := range words {
		for _, b := range words {
			if got, want := foldKey(a) == foldKey(b), bytes.EqualFold([]byte(a), []byte(b)); got != want {
				t.Errorf("foldKey(%q) == foldKey(%q) is %v; bytes.EqualFold says %v", a, b, got, want)
			}
		}
	}
}

// FuzzFoldKey checks the same property on any pair.
func FuzzFoldKey(f *testing.F) {
	f.Add("sub", "\u017fUB")
	f.Add("k", "\u212a")
	f.Fuzz(func(t *testing.T, a, b string) {
		if got, want := foldKey(a) == foldKey(b), bytes.EqualFold([]byte(a), []byte(b)); got != want {
			t.Errorf("foldKey(%q) == foldKey(%q) is %v; bytes.EqualFold says %v", a, b, got, want)
		}
	})
}
