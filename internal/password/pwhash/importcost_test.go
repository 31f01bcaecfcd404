package pwhash

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

// An imported hash is refused, at import, when verifying it at every
// wrong password would hold the hashing slots far longer than a login
// needs; the old bounds (argon2 at 1 GiB and t=64, scrypt at 1 GiB and
// p=16, PBKDF2 at ten million iterations per block of a long key, bcrypt
// at cost 16) stay
// what a stored hash may have, so one imported before is still verified.
func TestImportBounds(t *testing.T) {
	t.Parallel()
	salt := b64.EncodeToString([]byte("sixteen-byte-slt"))
	key := func(n int) string { return b64.EncodeToString([]byte(strings.Repeat("k", n))) }
	argon := func(m, tc int) string { return fmt.Sprintf("$argon2id$v=19$m=%d,t=%d,p=1$%s$%s", m, tc, salt, key(32)) }
	scrypt := func(ln, r, p int) string {
		return fmt.Sprintf("$scrypt$ln=%d,r=%d,p=%d$%s$%s", ln, r, p, salt, key(32))
	}
	pbkdf2 := func(i, keyLen int) string { return fmt.Sprintf("$pbkdf2-sha1$i=%d$%s$%s", i, salt, key(keyLen)) }
	// A bcrypt hash's cost is its second field; the rest is 22 characters
	// of salt and 31 of hash in bcrypt's base64.
	bcryptAt := func(cost int) string { return fmt.Sprintf("$2a$%02d$%s", cost, strings.Repeat("a", 53)) }
	for _, c := range []struct {
		hashType, hash string
		ok             bool
	}{
		{"argon_2id", argon(256<<10, 4), true}, // 256 MiB, 1 GiB of passes
		{"argon_2id", argon(64<<10, 3), true},  // RFC 9106's second choice
		{"argon_2id", argon(256<<10, 5), false},
		{"argon_2id", argon(256<<10+1, 1), false},
		{"argon_2id", argon(1<<20, 64), false}, // the old bounds
		{"scrypt", scrypt(18, 8, 1), true},     // 128·N·r·p = 256 MiB
		{"scrypt", scrypt(17, 8, 2), true},
		{"scrypt", scrypt(17, 8, 3), false},
		{"scrypt", scrypt(20, 8, 1), false},
		{"scrypt", scrypt(20, 8, 16), false}, // the old bounds
		{"pbkdf_2", pbkdf2(10_000_000, 20), true},
		{"pbkdf_2", pbkdf2(5_000_000, 40), true}, // two SHA-1 blocks
		{"pbkdf_2", pbkdf2(10_000_000, 21), false},
		{"pbkdf_2", pbkdf2(2_000_000, 128), false}, // seven blocks
		{"bcrypt", bcryptAt(10), true},
		{"bcrypt", bcryptAt(14), true},
		{"bcrypt", bcryptAt(15), false},
		{"bcrypt", bcryptAt(16), false}, // the stored bound
	} {
		got, err := Normalize(Import{HashType: c.hashType, Hash: c.hash})
		if c.ok {
			if err != nil || got != c.hash {
				t.Errorf("Normalize(%s) = %q, %v; want it accepted as is", c.hash, got, err)
			}
			continue
		}
		if !errors.Is(err, ErrMalformed) || !strings.Contains(err.Error(), "too high") && !strings.Contains(err.Error(), "too many") {
			t.Errorf("Normalize(%s) = %q, %v; want a refusal saying the cost is too high", c.hash, got, err)
		}
		// Stored before the bound, it is still a hash Verify can check.
		if _, err := parse(c.hash); err != nil {
			t.Errorf("parse(%s): %v; a hash stored before the import bound must stay verifiable", c.hash, err)
		}
	}
}
