// Package compactjws refuses every spelling of a compact JWS but the one
// RFC 7515 defines, before anything verifies it.
//
// go-jose (and go-oidc on top of it) decodes the parts with
// base64.RawURLEncoding, which skips '\r' and '\n' anywhere and ignores the
// unused low bits of a part's last character, and it verifies the
// signature over its own re-encoding of the parts. So one signed token has
// many spellings that all verify: a newline inside the payload, a last
// character with other low bits. Whatever is remembered by the token's
// text (a spent token, a cache entry) is then remembered for one spelling
// only. Check lets through exactly one spelling per header, payload and
// signature: three non-empty parts of the base64url alphabet, unpadded,
// each the encoding of its decoded bytes.
//
// Callers that spend a token still spend it by what was signed (a token id
// or the decoded payload): an ECDSA signature has two valid values, so
// even the canonical text of one signed payload is not unique.
package compactjws

import (
	"errors"
	"strings"
)

// ErrNotCanonical is a token that is not a compact JWS in its one
// canonical spelling.
var ErrNotCanonical = errors.New("compactjws: not a canonically encoded compact JWS")

// Check returns ErrNotCanonical unless raw is header.payload.signature,
// each part non-empty canonical unpadded base64url. It allocates nothing:
// session JWTs pass through it on every cache miss.
func Check(raw string) error {
	rest := raw
	for range 2 {
		i := strings.IndexByte(rest, '.')
		if i < 0 || !canonical(rest[:i]) {
			return ErrNotCanonical
		}
		rest = rest[i+1:]
	}
	if !canonical(rest) {
		return ErrNotCanonical
	}
	return nil
}

// canonical reports whether s is non-empty, unpadded base64url that
// base64.RawURLEncoding would produce from its own decoding: only the
// alphabet (so no '.', '=', '+', '/', whitespace), a length that encodes
// whole bytes, and zero bits past the last byte.
func canonical(s string) bool {
	if s == "" || len(s)%4 == 1 {
		return false
	}
	var last byte
	for i := 0; i < len(s); i++ {
		v := value(s[i])
		if v < 0 {
			return false
		}
		last = byte(v)
	}
	switch len(s) % 4 {
	case 2: // one byte: 8 of the 12 bits carried, the low 4 unused
		return last&0x0f == 0
	case 3: // two bytes: 16 of 18, the low 2 unused
		return last&0x03 == 0
	}
	return true
}

// value is c's 6-bit value in the base64url alphabet, or -1.
func value(c byte) int {
	switch {
	case 'A' <= c && c <= 'Z':
		return int(c - 'A')
	case 'a' <= c && c <= 'z':
		return int(c-'a') + 26
	case '0' <= c && c <= '9':
		return int(c-'0') + 52
	case c == '-':
		return 62
	case c == '_':
		return 63
	}
	return -1
}
