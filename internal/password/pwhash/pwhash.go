// Package pwhash hashes new passwords with argon2id and verifies stored
// hashes of every format Latchkey accepts: its own argon2id, and the
// bcrypt, argon2i/argon2id, scrypt, PBKDF2 and salted MD-5, SHA-1 and
// SHA-512 hashes imported from other systems by passwords/migrate.
//
// Every stored hash is a self-describing string (PHC format, or bcrypt's
// modular crypt format), so a verifier never needs side information and a
// hash can be upgraded to the current argon2id cost after the next
// successful login. Comparisons are constant-time. Every hash and verify
// waits for one of a CPU-sized number of slots first (limit.go).
package pwhash

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"

	"github.com/latchkey/latchkey/third_party/argon2"
)

// Params is the argon2id cost of new hashes. The OWASP baseline is
// m=19 MiB, t=2, p=1; tests use far lower values.
type Params struct {
	MemoryKiB   uint32
	Iterations  uint32
	Parallelism uint8
}

// OWASP is the default cost (OWASP Password Storage Cheat Sheet, 2023+).
var OWASP = Params{MemoryKiB: 19 * 1024, Iterations: 2, Parallelism: 1}

// Validate rejects costs argon2 cannot run or that are far too weak to
// protect anything outside a test.
func (p Params) Validate() error {
	switch {
	case p.Iterations < 1:
		return errors.New("argon2 iterations must be at least 1")
	case p.Parallelism < 1:
		return errors.New("argon2 parallelism must be at least 1")
	case p.MemoryKiB < 8*uint32(p.Parallelism):
		return errors.New("argon2 memory must be at least 8 KiB per lane of parallelism")
	case p.MemoryKiB > maxArgonMemoryKiB:
		return fmt.Errorf("argon2 memory must be at most %d KiB", maxArgonMemoryKiB)
	case p.Iterations > maxArgonIterations:
		return fmt.Errorf("argon2 iterations must be at most %d", maxArgonIterations)
	}
	return nil
}

// Sizes of new hashes.
const (
	saltLen = 16
	keyLen  = 32
)

// ErrMalformed means a stored or imported hash could not be parsed.
var ErrMalformed = errors.New("pwhash: malformed hash")

// b64 is the PHC string encoding: standard alphabet, no padding.
var b64 = base64.RawStdEncoding

// Hash returns the argon2id PHC string of password with a fresh salt. It
// waits for a hashing slot first (see slots); ctx ends the wait.
func Hash(ctx context.Context, password string, p Params) (string, error) {
	if err := p.Validate(); err != nil {
		return "", fmt.Errorf("pwhash: %w", err)
	}
	salt := make([]byte, saltLen)
	if _, err := rand.Read(salt); err != nil {
		return "", fmt.Errorf("pwhash: salt: %w", err)
	}
	var key []byte
	if err := slots.do(ctx, int(p.Parallelism), func() {
		key = argon2.IDKey([]byte(password), salt, p.Iterations, p.MemoryKiB, p.Parallelism, keyLen)
	}); err != nil {
		return "", err
	}
	return encodeArgon2("argon2id", argon2Params{m: p.MemoryKiB, t: p.Iterations, p: p.Parallelism}, salt, key), nil
}

// Dummy returns a well-formed argon2id hash at cost p that no password
// matches (a random salt and a random key). Verifying against it costs
// exactly what verifying a real hash at p costs, which is what callers
// need it for; making it costs no hashing, so a server starts without
// spending a hash's time and memory.
func Dummy(p Params) (string, error) {
	if err := p.Validate(); err != nil {
		return "", fmt.Errorf("pwhash: %w", err)
	}
	salt, key := make([]byte, saltLen), make([]byte, keyLen)
	if _, err := rand.Read(salt); err != nil {
		return "", fmt.Errorf("pwhash: salt: %w", err)
	}
	if _, err := rand.Read(key); err != nil {
		return "", fmt.Errorf("pwhash: key: %w", err)
	}
	return encodeArgon2("argon2id", argon2Params{m: p.MemoryKiB, t: p.Iterations, p: p.Parallelism}, salt, key), nil
}

// Verify reports whether password matches the stored hash. A hash it cannot
// parse is an error, never a match. Every format waits for a hashing slot
// first (see slots), so a dummy verify costs what a real one does; ctx
// ends the wait.
func Verify(ctx context.Context, encoded, password string) (bool, error) {
	v, err := parse(encoded)
	if err != nil {
		return false, err
	}
	var ok bool
	var verr error
	if err := slots.do(ctx, v.lanes(), func() { ok, verr = v.verify(password) }); err != nil {
		return false, err
	}
	return ok, verr
}

// NeedsUpgrade reports whether a stored hash should be replaced by a fresh
// argon2id hash at the current cost: every imported format does, and so
// does an argon2id hash with any cost parameter below the current one.
func NeedsUpgrade(encoded string, current Params) bool {
	v, err := parse(encoded)
	if err != nil {
		return true
	}
	a, ok := v.(*argon2Hash)
	if !ok || a.variant != "argon2id" {
		return true
	}
	return a.params.m < current.MemoryKiB || a.params.t < current.Iterations || a.params.p < current.Parallelism ||
		len(a.key) < keyLen || len(a.salt) < saltLen
}

// Kind names the format of a stored hash ("argon2id", "bcrypt", ...), for
// tests and diagnostics.
func Kind(encoded string) string {
	v, err := parse(encoded)
	if err != nil {
		return ""
	}
	return v.kind()
}

// verifier is one parsed stored hash.
type verifier interface {
	verify(password string) (bool, error)
	kind() string
	// lanes is how many threads verify keeps busy at once.
	lanes() int
}

func parse(encoded string) (verifier, error) {
	switch {
	case strings.HasPrefix(encoded, "$argon2id$"), strings.HasPrefix(encoded, "$argon2i$"):
		return parseArgon2(encoded)
	case strings.HasPrefix(encoded, "$2a$"), strings.HasPrefix(encoded, "$2b$"), strings.HasPrefix(encoded, "$2y$"):
		return parseBcrypt(encoded)
	case strings.HasPrefix(encoded, "$scrypt$"):
		return parseScrypt(encoded)
	case strings.HasPrefix(encoded, "$pbkdf2-"):
		return parsePBKDF2(encoded)
	case strings.HasPrefix(encoded, "$digest-"):
		return parseDigest(encoded)
	default:
		return nil, ErrMalformed
	}
}

func equal(a, b []byte) bool { return subtle.ConstantTimeCompare(a, b) == 1 }
