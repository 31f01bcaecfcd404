package apptest

import (
	"slices"
	"strings"
	"testing"
)

// Respellings are tok's non-canonical spellings that go-jose's decoder
// (base64.RawURLEncoding) reads as the same header, payload and signature,
// so that they verify: '\r' and '\n' inside a part, and other unused low
// bits in a part's last character. Every JWT reader must refuse them (see
// compactjws).
func Respellings(t testing.TB, tok string) map[string]string {
	t.Helper()
	parts := strings.Split(tok, ".")
	if len(parts) != 3 || len(parts[0]) < 5 || len(parts[1]) < 5 {
		t.Fatalf("not a compact JWS: %s", tok)
	}
	h, p, s := parts[0], parts[1], parts[2]
	out := map[string]string{
		"newline in payload": h + "." + p[:5] + "\n" + p[5:] + "." + s,
		"CRLF in header":     h[:3] + "\r\n" + h[3:] + "." + p + "." + s,
		"trailing newline":   tok + "\n",
	}
	// A part whose length is not a multiple of 4 leaves its last
	// character's low bits unused (2 or 4 of them); flipping the lowest
	// keeps the decoded bytes.
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
	for i, name := range []string{"header", "payload", "signature"} {
		if len(parts[i])%4 < 2 {
			continue
		}
		q := slices.Clone(parts)
		v := strings.IndexByte(alphabet, q[i][len(q[i])-1])
		q[i] = q[i][:len(q[i])-1] + string(alphabet[v^1])
		out["non-canonical trailing bits in "+name] = strings.Join(q, ".")
	}
	if len(out) == 3 {
		t.Fatalf("no part of %s has unused bits", tok)
	}
	return out
}
