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

// The key is AES-256 only: aes.NewCipher would silently accept a 16- or
// 24-byte key and give AES-128/192, so New must refuse every other length.
func TestNewRefusesShortKeys(t *testing.T) {
	for _, n := range []int{0, 16, 24, 31, 33} {
		if _, err := New(make([]byte, n)); err == nil {
			t.Errorf("New accepted a %d-byte key", n)
		}
	}
}

// A sealed value cut short (a truncated column, a hand-edited row) is an
// error, not a panic: Open slices off the nonce, so it must check the
// length first or one bad row crashes every request that reads it.
func TestOpenRefusesTruncatedValues(t *testing.T) {
	b := NewRandom()
	s := b.Seal("hunter2", "aad")
	for _, bad := range []string{Prefix, Prefix + "AAAA", Prefix + "not base64!", s[:len(s)-4]} {
		if got, err := b.Open(bad, "aad"); err == nil || errors.Is(err, ErrNotSealed) {
			t.Errorf("Open(%q) = %q, %v; want a malformed or tampered error", bad, got, err)
		}
	}
}
