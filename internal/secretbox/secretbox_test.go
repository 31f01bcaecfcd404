package secretbox

import (
	"errors"
	"testing"
)

func TestSealOpen(t *testing.T) {
	key, err := ParseKey(NewKey())
	if err != nil {
		t.Fatal(err)
	}
	b, _ := New(key)
	s := b.Seal("hunter2", "oauth:p:google")
	if !IsSealed(s) || s == b.Seal("hunter2", "oauth:p:google") {
		t.Fatalf("sealed values must carry the prefix and differ per nonce: %q", s)
	}
	if got, err := b.Open(s, "oauth:p:google"); err != nil || got != "hunter2" {
		t.Fatalf("open: %q %v", got, err)
	}
	if _, err := b.Open(s, "oauth:p:github"); err == nil {
		t.Fatal("a value moved to another place must not open")
	}
	other, _ := New(make([]byte, KeySize))
	if _, err := other.Open(s, "oauth:p:google"); err == nil {
		t.Fatal("a wrong key must not open")
	}
	if _, err := b.Open("plain", ""); !errors.Is(err, ErrNotSealed) {
		t.Fatalf("plaintext: %v", err)
	}
	for _, bad := range []string{"", "AAAA", "!!!"} {
		if _, err := ParseKey(bad); err == nil {
			t.Fatalf("key %q accepted", bad)
		}
	}
}
