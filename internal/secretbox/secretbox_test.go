package secretbox

import (
	"crypto/hkdf"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"testing"
)

// A tag is HMAC-SHA256 under a subkey of the box's key, never the AES key
// itself, and depends on key, purpose and message. The expected value is
// computed here from its definition, so a change to the derivation (which
// would make every live code fail once, across an upgrade) shows.
func TestTag(t *testing.T) {
	key := make([]byte, KeySize)
	for i := range key {
		key[i] = byte(i)
	}
	b, _ := New(key)
	sub, _ := hkdf.Key(sha256.New, key, nil, "latchkey secretbox tag v1", sha256.Size)
	m := hmac.New(sha256.New, sub)
	m.Write([]byte("codes:email_otps\x00salt:123456"))
	if got, want := b.Tag("codes:email_otps", "salt:123456"), hex.EncodeToString(m.Sum(nil)); got != want {
		t.Fatalf("tag = %s, want %s", got, want)
	}
	plain := hmac.New(sha256.New, key)
	plain.Write([]byte("codes:email_otps\x00salt:123456"))
	if b.Tag("codes:email_otps", "salt:123456") == hex.EncodeToString(plain.Sum(nil)) {
		t.Fatal("the tag must not be keyed with the AES key itself")
	}
	other, _ := New(make([]byte, KeySize))
	for _, c := range []struct{ name, got string }{
		{"another key", other.Tag("codes:email_otps", "salt:123456")},
		{"another purpose", b.Tag("codes:sms_otps", "salt:123456")},
		{"another message", b.Tag("codes:email_otps", "salt:123457")},
		// The separator keeps purpose and message apart.
		{"a shifted boundary", b.Tag("codes:email_otpss", "alt:123456")},
	} {
		if c.got == b.Tag("codes:email_otps", "salt:123456") {
			t.Errorf("%s gave the same tag", c.name)
		}
	}
}

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
