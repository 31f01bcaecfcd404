package pwhash

import (
	"crypto/pbkdf2"
	"crypto/sha1"
	"crypto/sha256"
	"crypto/sha512"
	"errors"
	"fmt"
	"hash"
	"math/bits"
	"strings"

	"golang.org/x/crypto/bcrypt"
	"golang.org/x/crypto/scrypt"
)

// Bounds on stored legacy costs (see maxArgonMemoryKiB for why; an import
// must also pass the tighter bounds of importable).
const (
	maxBcryptCost       = 16
	maxScryptLogN       = 20 // N <= 1,048,576
	maxScryptR          = 32
	maxScryptP          = 16
	maxPBKDF2Iterations = 10_000_000
)

type bcryptHash struct {
	encoded []byte
	cost    int // log2 of the rounds (importable bounds it)
}

func (b *bcryptHash) kind() string { return "bcrypt" }
func (b *bcryptHash) lanes() int   { return 1 }

func (b *bcryptHash) verify(password string) (bool, error) {
	err := bcrypt.CompareHashAndPassword(b.encoded, []byte(password))
	switch {
	case err == nil:
		return true, nil
	case errors.Is(err, bcrypt.ErrMismatchedHashAndPassword):
		return false, nil
	default:
		return false, fmt.Errorf("pwhash: bcrypt: %w", err)
	}
}

func parseBcrypt(encoded string) (*bcryptHash, error) {
	cost, err := bcrypt.Cost([]byte(encoded))
	if err != nil {
		return nil, fmt.Errorf("%w: bcrypt: %v", ErrMalformed, err)
	}
	if cost > maxBcryptCost || len(encoded) != 60 {
		return nil, fmt.Errorf("%w: bcrypt cost or length out of range", ErrMalformed)
	}
	return &bcryptHash{encoded: []byte(encoded), cost: cost}, nil
}

// scryptHash is stored as "$scrypt$ln=<log2 N>,r=<r>,p=<p>$<salt>$<hash>",
// the PHC form passlib and others use.
type scryptHash struct {
	logN, r, p int
	salt, key  []byte
}

func (s *scryptHash) kind() string { return "scrypt" }

// lanes: x/crypto's scrypt computes its p blocks one after another.
func (s *scryptHash) lanes() int { return 1 }

func (s *scryptHash) verify(password string) (bool, error) {
	got, err := scrypt.Key([]byte(password), s.salt, 1<<s.logN, s.r, s.p, len(s.key))
	if err != nil {
		return false, fmt.Errorf("pwhash: scrypt: %w", err)
	}
	return equal(got, s.key), nil
}

func (s *scryptHash) encode() string {
	return fmt.Sprintf("$scrypt$ln=%d,r=%d,p=%d$%s$%s", s.logN, s.r, s.p, b64.EncodeToString(s.salt), b64.EncodeToString(s.key))
}

func parseScrypt(encoded string) (*scryptHash, error) {
	parts := strings.Split(encoded, "$")
	if len(parts) != 5 || parts[0] != "" {
		return nil, fmt.Errorf("%w: scrypt needs $scrypt$ln=,r=,p=$salt$hash", ErrMalformed)
	}
	kv, err := phcParams(parts[2], "ln", "r", "p")
	if err != nil {
		return nil, err
	}
	s := &scryptHash{logN: int(kv["ln"]), r: int(kv["r"]), p: int(kv["p"])}
	if err := s.checkCost(); err != nil {
		return nil, err
	}
	if s.salt, s.key, err = saltAndKey(parts[3], parts[4]); err != nil {
		return nil, err
	}
	return s, nil
}

func (s *scryptHash) checkCost() error {
	if s.logN < 1 || s.logN > maxScryptLogN || s.r < 1 || s.r > maxScryptR || s.p < 1 || s.p > maxScryptP {
		return fmt.Errorf("%w: scrypt cost out of range (N a power of two up to 2^%d, r <= %d, p <= %d)",
			ErrMalformed, maxScryptLogN, maxScryptR, maxScryptP)
	}
	// scrypt holds 128·N·r bytes while it runs: N and r at their separate
	// maxima would be 4 GiB per login, so their product has argon2's cap.
	if kib := (128 << s.logN) * s.r / 1024; kib > maxArgonMemoryKiB {
		return fmt.Errorf("%w: scrypt needs %d MiB (128·N·r); at most %d MiB is accepted",
			ErrMalformed, kib/1024, maxArgonMemoryKiB/1024)
	}
	return nil
}

// log2 returns k when n == 2^k (k >= 1), or -1.
func log2(n int) int {
	if n < 2 || n&(n-1) != 0 {
		return -1
	}
	return bits.TrailingZeros(uint(n))
}

// pbkdf2Hash is stored as "$pbkdf2-<digest>$i=<iterations>$<salt>$<hash>";
// the key length is the decoded hash's length.
type pbkdf2Hash struct {
	digest     string // sha1, sha256 or sha512
	iterations int
	salt, key  []byte
}

func (p *pbkdf2Hash) kind() string { return "pbkdf2-" + p.digest }
func (p *pbkdf2Hash) lanes() int   { return 1 }

func (p *pbkdf2Hash) verify(password string) (bool, error) {
	got, err := pbkdf2.Key(digests[p.digest], password, p.salt, p.iterations, len(p.key))
	if err != nil {
		return false, fmt.Errorf("pwhash: pbkdf2: %w", err)
	}
	return equal(got, p.key), nil
}

func (p *pbkdf2Hash) encode() string {
	return fmt.Sprintf("$pbkdf2-%s$i=%d$%s$%s", p.digest, p.iterations, b64.EncodeToString(p.salt), b64.EncodeToString(p.key))
}

// digests are the PBKDF2 pseudo-random functions accepted on import.
var digests = map[string]func() hash.Hash{"sha1": sha1.New, "sha256": sha256.New, "sha512": sha512.New}

func parsePBKDF2(encoded string) (*pbkdf2Hash, error) {
	parts := strings.Split(encoded, "$")
	if len(parts) != 5 || parts[0] != "" {
		return nil, fmt.Errorf("%w: pbkdf2 needs $pbkdf2-<digest>$i=$salt$hash", ErrMalformed)
	}
	p := &pbkdf2Hash{digest: strings.TrimPrefix(parts[1], "pbkdf2-")}
	if _, ok := digests[p.digest]; !ok {
		return nil, fmt.Errorf("%w: pbkdf2 digest must be sha1, sha256 or sha512", ErrMalformed)
	}
	kv, err := phcParams(parts[2], "i")
	if err != nil {
		return nil, err
	}
	p.iterations = int(kv["i"])
	if p.iterations < 1 || p.iterations > maxPBKDF2Iterations {
		return nil, fmt.Errorf("%w: pbkdf2 iterations must be 1 to %d", ErrMalformed, maxPBKDF2Iterations)
	}
	if p.salt, p.key, err = saltAndKey(parts[3], parts[4]); err != nil {
		return nil, err
	}
	return p, nil
}
