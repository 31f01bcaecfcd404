// Package ids mints the typed identifiers and the random secrets Latchkey
// hands out, and hashes secrets for storage.
//
// Identifiers follow the wire format of the SDKs we are compatible with:
// "<kind>-<env>-<uuid>", e.g. "organization-test-2f1c...". Secrets (session
// tokens, magic-link tokens, API secrets) are 32 random bytes in base64url
// and are only ever stored as SHA-256 hashes.
package ids

import (
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"math/big"
	"strings"

	"github.com/google/uuid"
)

// Env is a project's environment, embedded in every identifier it owns.
type Env string

// Environments.
const (
	Test Env = "test"
	Live Env = "live"
)

// Valid reports whether e is a known environment.
func (e Env) Valid() bool { return e == Test || e == Live }

// New returns "<kind>-<env>-<uuidv4>".
func New(kind string, env Env) string {
	return kind + "-" + string(env) + "-" + uuid.NewString()
}

// Is reports whether s is spelled as New spells an identifier of kind:
// "<kind>-<env>-<uuid>" with a known env. It says nothing of whether the
// identifier exists; callers use it to tell an id from another handle
// (a slug, an external id) without a lookup.
func Is(kind, s string) bool {
	rest, ok := strings.CutPrefix(s, kind+"-")
	if !ok {
		return false
	}
	env, u, ok := strings.Cut(rest, "-")
	if !ok || !Env(env).Valid() || len(u) != 36 {
		return false
	}
	_, err := uuid.Parse(u)
	return err == nil
}

// Unreserved reports whether s is made only of URL unreserved characters
// (RFC 3986 2.3: [A-Za-z0-9-._~]), which need no escaping anywhere: in a
// path segment, a query, a form or a Basic-auth user id. It says nothing
// of length, and "" passes.
func Unreserved(s string) bool {
	for _, c := range []byte(s) {
		if !(c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '.' || c == '_' || c == '~') {
			return false
		}
	}
	return true
}

// Token returns a fresh 256-bit random secret in base64url without padding.
func Token() string {
	var b [32]byte
	if _, err := rand.Read(b[:]); err != nil {
		// crypto/rand never fails on supported platforms; failing loudly beats
		// handing out a predictable secret.
		panic(fmt.Errorf("ids: crypto/rand: %w", err))
	}
	return base64.RawURLEncoding.EncodeToString(b[:])
}

// Hash returns the hex SHA-256 of a high-entropy secret. Plain SHA-256 is
// right for 256-bit random tokens (no dictionary to attack); low-entropy
// codes use HashCode with a per-row salt instead.
func Hash(secret string) string {
	sum := sha256.Sum256([]byte(secret))
	var out [2 * sha256.Size]byte
	hex.Encode(out[:], sum[:])
	return string(out[:])
}

// HashCode hashes a short one-time code with a per-row salt so that equal
// codes in different rows do not share a hash.
func HashCode(salt, code string) string {
	sum := sha256.Sum256([]byte(salt + ":" + code))
	return hex.EncodeToString(sum[:])
}

// Equal compares two hashes in constant time.
func Equal(a, b string) bool {
	return subtle.ConstantTimeCompare([]byte(a), []byte(b)) == 1
}

// Digits returns n uniformly random decimal digits (for one-time passcodes).
func Digits(n int) string {
	out := make([]byte, n)
	ten := big.NewInt(10)
	for i := range out {
		d, err := rand.Int(rand.Reader, ten)
		if err != nil {
			panic(fmt.Errorf("ids: crypto/rand: %w", err))
		}
		out[i] = byte('0' + d.Int64())
	}
	return string(out)
}
