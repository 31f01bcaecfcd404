package compactjws

import (
	"encoding/base64"
	"errors"
	"strings"
	"testing"
)

// A real token's spelling passes; the re-spellings go-jose would accept
// (and verify) are refused, as is anything but three parts.
func TestCheck(t *testing.T) {
	enc := base64.RawURLEncoding.EncodeToString
	header, payload, sig := enc([]byte(`{"alg":"RS256","kid":"k1"}`)), enc([]byte(`{"sub":"ada","n":1}`)), enc([]byte{0xfb, 0xff, 0x01, 0x02, 0x03})
	good := header + "." + payload + "." + sig
	if err := Check(good); err != nil {
		t.Fatalf("canonical token refused: %v", err)
	}
	// The same token re-spelled so that RawURLEncoding decodes it the same.
	if b, err := base64.RawURLEncoding.DecodeString(payload[:4] + "\n" + payload[4:]); err != nil || enc(b) != payload {
		t.Fatalf("the decoder no longer skips newlines (%v); the newline case below tests nothing", err)
	}
	for name, tok := range map[string]string{
		"newline in payload":      header + "." + payload[:4] + "\n" + payload[4:] + "." + sig,
		"CRLF in header":          header[:3] + "\r\n" + header[3:] + "." + payload + "." + sig,
		"trailing newline":        good + "\n",
		"non-canonical last bits": header + "." + payload + "." + sig[:len(sig)-1] + string(sig[len(sig)-1]+1),
		"padding":                 header + "." + payload + "." + base64.URLEncoding.EncodeToString([]byte{1, 2}),
		"standard alphabet":       header + "." + payload + "." + base64.RawStdEncoding.EncodeToString([]byte{0xfb, 0xff}),
		"space":                   header + ". " + payload + "." + sig,
		"two parts":               header + "." + payload,
		"four parts":              good + "." + sig,
		"empty signature":         header + "." + payload + ".",
		"empty payload":           header + ".." + sig,
		"length that is no bytes": header + "." + payload + "." + "AAAAA",
		"JWS JSON serialization":  `{"payload":"` + payload + `","protected":"` + header + `","signature":"` + sig + `"}`,
		"empty":                   "",
		"dots only":               "..",
	} {
		if err := Check(tok); !errors.Is(err, ErrNotCanonical) {
			t.Errorf("%s: %q accepted", name, tok)
		}
	}
	if sig[len(sig)-1] == '_' {
		t.Fatal("test setup: the signature's last character cannot be bumped")
	}
}

// canonical agrees with its definition (decodes, and re-encodes to the
// same text) on every string of up to three characters over the alphabet
// and the characters decoders treat specially.
func TestCanonicalIsDecodeReencode(t *testing.T) {
	chars := "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_=+/\r\n ."
	defined := func(s string) bool {
		b, err := base64.RawURLEncoding.DecodeString(s)
		return s != "" && err == nil && base64.RawURLEncoding.EncodeToString(b) == s
	}
	var walk func(prefix string, depth int)
	walk = func(prefix string, depth int) {
		if got, want := canonical(prefix), defined(prefix); got != want {
			t.Fatalf("canonical(%q) = %v, want %v", prefix, got, want)
		}
		if depth == 0 {
			return
		}
		for i := range len(chars) {
			walk(prefix+chars[i:i+1], depth-1)
		}
	}
	walk("", 3)
	// And longer ones: every encoding of 1..40 bytes passes.
	for n := 1; n <= 40; n++ {
		s := base64.RawURLEncoding.EncodeToString([]byte(strings.Repeat("\xa7", n)))
		if !canonical(s) {
			t.Fatalf("canonical(%q) = false", s)
		}
	}
}

func FuzzCheck(f *testing.F) {
	f.Add("eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJhZGEifQ.AQID")
	f.Add("eyJhbGciOiJSUzI1NiJ9.eyJzdWIi\nOiJhZGEifQ.AQID")
	f.Fuzz(func(t *testing.T, raw string) {
		parts := strings.Split(raw, ".")
		want := len(parts) == 3
		for _, p := range parts {
			b, err := base64.RawURLEncoding.DecodeString(p)
			want = want && p != "" && err == nil && base64.RawURLEncoding.EncodeToString(b) == p
		}
		if got := Check(raw) == nil; got != want {
			t.Fatalf("Check(%q) ok = %v, want %v", raw, got, want)
		}
	})
}
