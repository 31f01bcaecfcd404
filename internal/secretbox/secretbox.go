// Package secretbox encrypts secrets at rest (signing keys, OAuth client
// secrets, TOTP secrets) with AES-256-GCM under the operator's
// LATCHKEY_ENCRYPTION_KEY. A sealed value is text, so it fits the same
// TEXT columns as before, and carries a version prefix so a stored
// plaintext can be told from a sealed one when migrating old rows. The
// same key also tags values that are checked but never read back (short
// one-time codes, see Tag), through a subkey of its own.
package secretbox

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/hkdf"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
)

// Prefix marks a sealed value.
const Prefix = "lk1:"

// KeySize is the key length in bytes (AES-256).
const KeySize = 32

// ErrNotSealed is returned by Open for a value without the prefix.
var ErrNotSealed = errors.New("secretbox: value is not sealed")

// Box seals and opens values under one key, and tags values under a
// subkey derived from it.
type Box struct {
	aead   cipher.AEAD
	tagKey []byte
}

// ParseKey decodes a standard-base64 key of exactly KeySize bytes.
func ParseKey(s string) ([]byte, error) {
	k, err := base64.StdEncoding.DecodeString(strings.TrimSpace(s))
	if err != nil {
		return nil, fmt.Errorf("secretbox: key is not standard base64: %w", err)
	}
	if len(k) != KeySize {
		return nil, fmt.Errorf("secretbox: key must be %d bytes, got %d", KeySize, len(k))
	}
	return k, nil
}

// NewKey returns a fresh random key in standard base64.
func NewKey() string {
	k := make([]byte, KeySize)
	_, _ = rand.Read(k)
	return base64.StdEncoding.EncodeToString(k)
}

// New returns a box for a KeySize-byte key.
func New(key []byte) (*Box, error) {
	if len(key) != KeySize {
		return nil, fmt.Errorf("secretbox: key must be %d bytes, got %d", KeySize, len(key))
	}
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, fmt.Errorf("secretbox: %w", err)
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		return nil, fmt.Errorf("secretbox: %w", err)
	}
	// A subkey, so a tag never uses the AES key itself in a second
	// construction.
	tagKey, err := hkdf.Key(sha256.New, key, nil, "latchkey secretbox tag v1", sha256.Size)
	if err != nil {
		return nil, fmt.Errorf("secretbox: derive tag key: %w", err)
	}
	return &Box{aead: aead, tagKey: tagKey}, nil
}

// Tag returns the hex HMAC-SHA256 of msg for purpose under the box's tag
// subkey. It is for secrets too short to store as a plain hash: a
// six-digit code hashed with a salt in the same row is recovered from a
// database read in a million tries, while its tag cannot be computed
// without the key, which is not in the database. purpose separates the
// uses (a tag made for one never matches in another).
func (b *Box) Tag(purpose, msg string) string {
	m := hmac.New(sha256.New, b.tagKey)
	m.Write([]byte(purpose))
	m.Write([]byte{0})
	m.Write([]byte(msg))
	return hex.EncodeToString(m.Sum(nil))
}

// Seal encrypts plaintext with a random nonce. aad binds the value to its
// place (for example "oauth:"+project+":"+provider), so a sealed value
// copied into another row does not open there.
func (b *Box) Seal(plaintext, aad string) string {
	nonce := make([]byte, b.aead.NonceSize())
	_, _ = rand.Read(nonce)
	ct := b.aead.Seal(nonce, nonce, []byte(plaintext), []byte(aad))
	return Prefix + base64.RawStdEncoding.EncodeToString(ct)
}

// Open decrypts a sealed value; a value without the prefix is ErrNotSealed.
func (b *Box) Open(sealed, aad string) (string, error) {
	rest, ok := strings.CutPrefix(sealed, Prefix)
	if !ok {
		return "", ErrNotSealed
	}
	raw, err := base64.RawStdEncoding.DecodeString(rest)
	if err != nil || len(raw) < b.aead.NonceSize() {
		return "", errors.New("secretbox: malformed sealed value")
	}
	pt, err := b.aead.Open(nil, raw[:b.aead.NonceSize()], raw[b.aead.NonceSize():], []byte(aad))
	if err != nil {
		return "", errors.New("secretbox: cannot open: wrong key or tampered value")
	}
	return string(pt), nil
}

// IsSealed reports whether s carries the sealed prefix.
func IsSealed(s string) bool { return strings.HasPrefix(s, Prefix) }

// NewRandom returns a box under a fresh random key, for values that need
// not outlive the process (tests, dev servers wired without a key).
func NewRandom() *Box {
	k, _ := ParseKey(NewKey())
	b, _ := New(k)
	return b
}
