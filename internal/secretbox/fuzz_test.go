package secretbox

import (
	"bytes"
	"encoding/base64"
	"errors"
	"strings"
	"testing"
)

// FuzzOpen opens arbitrary text, as a value read back from the database
// (or planted there) may be, under a fixed key. Properties: Open never
// panics; a value without Prefix is ErrNotSealed; and it returns a
// plaintext only for a value Seal made under this key and this aad (the
// same ciphertext bytes: base64 may spell them more than one way), never
// for a forged, altered or moved one.
func FuzzOpen(f *testing.F) {
	box, err := New(bytes.Repeat([]byte{7}, KeySize))
	if err != nil {
		f.Fatal(err)
	}
	// Values Seal made under this key, fixed: the fuzz engine runs this
	// setup again in each worker process, where a fresh Seal (a random
	// nonce) would make other ciphertexts than the seeds'.
	type genuine struct{ sealed, aad, plaintext string }
	sealed := []genuine{
		{"lk1:YeHav5YfPYvrlLUPBllxF86fN6kXvbQxpszPIODIIYeb7MM", "oauth:p:google", "hunter2"},
		{"lk1:akoFydoUt90M2pmxZzNTpkIoaFX4TedhHmIAzg", "signing_keys.private_key_pem:kid-1", ""},
		{"lk1:zMbwLaHtyiZoij26slHLK82zgvjkfpwEptfAQGBZcDO2z9VsX/qt+bYIrEEPgS1v5ycQ2D+6FSahWNsrLj3yI4g4UxiN71/TZNTh/fbHDhLWHUm9TpfV", "signing_keys.private_key_pem:kid-2", "-----BEGIN PRIVATE KEY-----\nMIIB\n-----END PRIVATE KEY-----\n"},
		{"lk1:1ehQReZjPl9v8TgJi5wj9rPIaPDfyFibmAK3yneXA5iJqjgBsCUWBcW5kyo", "", "JBSWY3DPEHPK3PXP"},
	}
	var raws []string // each one's ciphertext
	for i, g := range sealed {
		if pt, err := box.Open(g.sealed, g.aad); err != nil || pt != g.plaintext {
			f.Fatalf("the fixed sealed value %d: %q, %v", i, pt, err)
		}
		raw, err := base64.RawStdEncoding.DecodeString(strings.TrimPrefix(g.sealed, Prefix))
		if err != nil {
			f.Fatal(err)
		}
		raws = append(raws, string(raw))
		s := g.sealed
		f.Add(s, g.aad)
		f.Add(s, g.aad+"x")
		f.Add(s[:len(s)-1], g.aad)
	}
	f.Add("lk1:", "")
	f.Add("lk1:AAAAAAAAAAAAAAAA", "")
	f.Add("plain", "")
	f.Fuzz(func(t *testing.T, s, aad string) {
		pt, err := box.Open(s, aad)
		if !strings.HasPrefix(s, Prefix) {
			if !errors.Is(err, ErrNotSealed) || pt != "" {
				t.Fatalf("Open(%q) of an unsealed value: %q, %v", s, pt, err)
			}
			return
		}
		if err != nil {
			if pt != "" || errors.Is(err, ErrNotSealed) {
				t.Fatalf("Open(%q) failed with %q, %v", s, pt, err)
			}
			return
		}
		raw, derr := base64.RawStdEncoding.DecodeString(strings.TrimPrefix(s, Prefix))
		if derr != nil {
			t.Fatalf("Open(%q) opened what is not base64: %q", s, pt)
		}
		for i, g := range sealed {
			if raws[i] == string(raw) && g.aad == aad && g.plaintext == pt {
				return
			}
		}
		t.Fatalf("Open(%q, %q) returned %q for a value Seal did not make", s, aad, pt)
	})
}
