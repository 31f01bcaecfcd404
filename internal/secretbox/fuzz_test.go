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
	type genuine struct{ raw, aad, plaintext string }
	var sealed []genuine
	for _, v := range []struct{ plaintext, aad string }{
		{"hunter2", "oauth:p:google"},
		{"", "signing_keys.private_key_pem:kid-1"},
		{"-----BEGIN PRIVATE KEY-----\nMIIB\n-----END PRIVATE KEY-----\n", "signing_keys.private_key_pem:kid-2"},
		{"JBSWY3DPEHPK3PXP", ""},
	} {
		s := box.Seal(v.plaintext, v.aad)
		raw, err := base64.RawStdEncoding.DecodeString(strings.TrimPrefix(s, Prefix))
		if err != nil {
			f.Fatal(err)
		}
		sealed = append(sealed, genuine{string(raw), v.aad, v.plaintext})
		f.Add(s, v.aad)
		f.Add(s, v.aad+"x")
		f.Add(s[:len(s)-1], v.aad)
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
		for _, g := range sealed {
			if g.raw == string(raw) && g.aad == aad && g.plaintext == pt {
				return
			}
		}
		t.Fatalf("Open(%q, %q) returned %q for a value Seal did not make", s, aad, pt)
	})
}
