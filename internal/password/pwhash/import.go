package pwhash

import (
	"encoding/base64"
	"fmt"
	"strings"
)

// HashTypes are the hash_type values passwords/migrate accepts.
var HashTypes = []string{"bcrypt", "argon_2i", "argon_2id", "scrypt", "pbkdf_2", "md_5", "sha_1", "sha_512"}

// Argon2Config is migrate's argon_2_config: the parameters of a raw argon2
// hash. The salt is the salt string itself (not base64).
type Argon2Config struct {
	Salt            string `json:"salt"`
	IterationAmount int    `json:"iteration_amount"`
	Memory          int    `json:"memory"` // KiB
	Threads         int    `json:"threads"`
	KeyLength       int    `json:"key_length"`
}

// ScryptConfig is migrate's scrypt_config; the salt is base64.
type ScryptConfig struct {
	Salt       string `json:"salt"`
	NParameter int    `json:"n_parameter"`
	RParameter int    `json:"r_parameter"`
	PParameter int    `json:"p_parameter"`
	KeyLength  int    `json:"key_length"`
}

// PBKDF2Config is migrate's pbkdf_2_config; the salt is base64 and the
// algorithm one of sha1, sha256 (the default) and sha512.
type PBKDF2Config struct {
	Salt            string `json:"salt"`
	IterationAmount int    `json:"iteration_amount"`
	KeyLength       int    `json:"key_length"`
	Algorithm       string `json:"algorithm"`
}

// SaltConfig is migrate's md_5_config, sha_1_config and sha_512_config:
// the salts the other system put around the password before hashing it,
// as the strings themselves (not base64).
type SaltConfig struct {
	PrependSalt string `json:"prepend_salt"`
	AppendSalt  string `json:"append_salt"`
}

// Import is a hash exported from another system.
type Import struct {
	Hash     string
	HashType string
	Argon2   *Argon2Config
	Scrypt   *ScryptConfig
	PBKDF2   *PBKDF2Config
	MD5      *SaltConfig
	SHA1     *SaltConfig
	SHA512   *SaltConfig
}

// Normalize checks an imported hash and returns the self-describing string
// Latchkey stores. A hash already in PHC (or bcrypt) form is taken as is;
// otherwise the type's config supplies the parameters and Hash is the
// base64 of the raw derived key (the hex digest for md_5, sha_1 and
// sha_512, whose optional config holds the salts). Errors wrap ErrMalformed and say what is
// wrong, for the importing developer.
func Normalize(in Import) (string, error) {
	enc, err := normalize(in)
	if err != nil {
		return "", err
	}
	v, err := parse(enc)
	if err != nil {
		return "", err
	}
	if err := importable(v); err != nil {
		return "", err
	}
	return enc, nil
}

// Bounds on the cost of an imported hash, tighter than what parse accepts
// (maxArgonMemoryKiB and the others, which also bound the configured
// cost). Every wrong password for a member costs one verification of
// their hash, holding hashing slots (limit.go) for as long as it runs, so
// one member's imported hash must not turn their failed logins into tens
// of seconds of every slot (the earlier bounds allowed argon2 at 1 GiB and
// t=64, and scrypt at 1 GiB and p=16: minutes). Measured with x/crypto on
// one core, against a login at the OWASP default (argon2id, 19 MiB, t=2:
// 38 MiB of memory passes), a MiB of scrypt's 128·N·r·p costs about 2.6
// MiB of argon2 passes. The bounds keep a verification within about 25
// default logins (1 GiB of argon2 passes; 256 MiB of scrypt, about 17),
// and admit the costs systems actually export: libsodium's moderate
// argon2id (256 MiB, t=3), RFC 9106's second choice (64 MiB, t=3),
// Django's (100 MiB, t=2); scrypt at N=2^14..2^17, r=8, p=1 (Django,
// Node, passlib); bcrypt up to cost 14, above the 10 to 13 that
// frameworks and identity providers export (each step doubles: cost 10
// took 100 ms against the default login's 73 ms, so 14 is about 22
// logins, and the stored bound 16 four times that). Hashes imported before these bounds stay verifiable
// (parse), and are upgraded at their next successful login.
const (
	// argon2: memory m (KiB) and memory passes m·t (KiB): 256 MiB, and
	// 1 GiB of passes (what the old bounds, 1 GiB and t=64, made 64 GiB).
	maxImportArgonMemoryKiB = 256 << 10
	maxImportArgonPassesKiB = 1 << 20
	// scrypt: 128·N·r·p bytes, the memory one of its p blocks fills and
	// mixes, times p (which x/crypto runs one after another): 256 MiB.
	maxImportScryptBytes = 256 << 20
	// PBKDF2 runs all its iterations again for every digest-sized block
	// of the key: iterations·blocks is what a verification costs. The
	// iteration bound is kept, now on that product: a one-block key keeps
	// what it had, and a longer one no longer multiplies it (by up to
	// seven, a 128-byte SHA-1 key).
	maxImportPBKDF2Rounds = maxPBKDF2Iterations
	// bcrypt: 2^cost rounds of its key schedule.
	maxImportBcryptCost = 14
)

// importable refuses an imported hash whose verification would cost
// beyond the import bounds, saying which bound and why.
func importable(v verifier) error {
	switch h := v.(type) {
	case *argon2Hash:
		m, t := uint64(h.params.m), uint64(h.params.t)
		if m > maxImportArgonMemoryKiB || m*t > maxImportArgonPassesKiB {
			return fmt.Errorf("%w: argon2 cost m=%d,t=%d is too high to verify at every login: an imported argon2 hash "+
				"may use at most m=%d (256 MiB), and m·t at most %d (1 GiB of memory passes)",
				ErrMalformed, m, t, maxImportArgonMemoryKiB, maxImportArgonPassesKiB)
		}
	case *scryptHash:
		if bytes := (int64(128) << h.logN) * int64(h.r) * int64(h.p); bytes > maxImportScryptBytes {
			return fmt.Errorf("%w: scrypt cost N=2^%d,r=%d,p=%d is too high to verify at every login: "+
				"an imported scrypt hash may have 128·N·r·p at most 256 MiB (this one %d MiB)",
				ErrMalformed, h.logN, h.r, h.p, bytes>>20)
		}
	case *bcryptHash:
		if h.cost > maxImportBcryptCost {
			return fmt.Errorf("%w: bcrypt cost %d is too high to verify at every login: an imported bcrypt hash "+
				"may have cost at most %d (each step doubles the time)", ErrMalformed, h.cost, maxImportBcryptCost)
		}
	case *pbkdf2Hash:
		size := digests[h.digest]().Size()
		blocks := (len(h.key) + size - 1) / size
		if h.iterations*blocks > maxImportPBKDF2Rounds {
			return fmt.Errorf("%w: pbkdf2 with %d iterations and a %d-byte key computes %d blocks of %d iterations, "+
				"too many to verify at every login: iterations times blocks (key length over %d bytes, rounded up) may be at most %d",
				ErrMalformed, h.iterations, len(h.key), blocks, h.iterations, size, maxImportPBKDF2Rounds)
		}
	}
	return nil
}

func normalize(in Import) (string, error) {
	h := strings.TrimSpace(in.Hash)
	if h == "" {
		return "", fmt.Errorf("%w: hash is empty", ErrMalformed)
	}
	switch in.HashType {
	case "bcrypt":
		if _, err := parseBcrypt(h); err != nil {
			return "", err
		}
		return h, nil
	case "argon_2i", "argon_2id":
		return normalizeArgon2(h, strings.ReplaceAll(in.HashType, "_2", "2"), in.Argon2)
	case "scrypt":
		return normalizeScrypt(h, in.Scrypt)
	case "pbkdf_2":
		return normalizePBKDF2(h, in.PBKDF2)
	case "md_5":
		return normalizeDigest(h, in.HashType, "md5", in.MD5)
	case "sha_1":
		return normalizeDigest(h, in.HashType, "sha1", in.SHA1)
	case "sha_512":
		return normalizeDigest(h, in.HashType, "sha512", in.SHA512)
	default:
		return "", fmt.Errorf("%w: hash_type must be one of %s", ErrMalformed, strings.Join(HashTypes, ", "))
	}
}

func normalizeArgon2(h, variant string, c *Argon2Config) (string, error) {
	if strings.HasPrefix(h, "$") {
		a, err := parseArgon2(h)
		if err != nil {
			return "", err
		}
		if a.variant != variant {
			return "", fmt.Errorf("%w: hash is %s but hash_type says %s", ErrMalformed, a.variant, variant)
		}
		return encodeArgon2(a.variant, a.params, a.salt, a.key), nil
	}
	if c == nil {
		return "", fmt.Errorf("%w: argon_2_config is required unless hash is a PHC string", ErrMalformed)
	}
	key, err := decodeAny(h)
	if err != nil {
		return "", err
	}
	if c.KeyLength != 0 && c.KeyLength != len(key) {
		return "", fmt.Errorf("%w: key_length %d does not match the %d-byte hash", ErrMalformed, c.KeyLength, len(key))
	}
	if c.Threads < 1 || c.Threads > 255 || c.Memory < 0 || c.IterationAmount < 0 {
		return "", fmt.Errorf("%w: argon2 threads must be 1 to 255", ErrMalformed)
	}
	enc := encodeArgon2(variant, argon2Params{m: uint32(c.Memory), t: uint32(c.IterationAmount), p: uint8(c.Threads)},
		[]byte(c.Salt), key)
	if _, err := parseArgon2(enc); err != nil { // applies the same bounds as PHC input
		return "", err
	}
	return enc, nil
}

func normalizeScrypt(h string, c *ScryptConfig) (string, error) {
	if strings.HasPrefix(h, "$") {
		s, err := parseScrypt(h)
		if err != nil {
			return "", err
		}
		return s.encode(), nil
	}
	if c == nil {
		return "", fmt.Errorf("%w: scrypt_config is required unless hash is a PHC string", ErrMalformed)
	}
	key, err := decodeAny(h)
	if err != nil {
		return "", err
	}
	salt, err := decodeAny(c.Salt)
	if err != nil {
		return "", fmt.Errorf("%w: scrypt salt must be base64", ErrMalformed)
	}
	if c.KeyLength != 0 && c.KeyLength != len(key) {
		return "", fmt.Errorf("%w: key_length %d does not match the %d-byte hash", ErrMalformed, c.KeyLength, len(key))
	}
	s := &scryptHash{logN: log2(c.NParameter), r: c.RParameter, p: c.PParameter, salt: salt, key: key}
	if err := s.checkCost(); err != nil {
		return "", err
	}
	enc := s.encode()
	if _, err := parseScrypt(enc); err != nil {
		return "", err
	}
	return enc, nil
}

func normalizePBKDF2(h string, c *PBKDF2Config) (string, error) {
	if strings.HasPrefix(h, "$") {
		p, err := parsePBKDF2(h)
		if err != nil {
			return "", err
		}
		return p.encode(), nil
	}
	if c == nil {
		return "", fmt.Errorf("%w: pbkdf_2_config is required unless hash is a PHC string", ErrMalformed)
	}
	key, err := decodeAny(h)
	if err != nil {
		return "", err
	}
	salt, err := decodeAny(c.Salt)
	if err != nil {
		return "", fmt.Errorf("%w: pbkdf2 salt must be base64", ErrMalformed)
	}
	if c.KeyLength != 0 && c.KeyLength != len(key) {
		return "", fmt.Errorf("%w: key_length %d does not match the %d-byte hash", ErrMalformed, c.KeyLength, len(key))
	}
	digest := strings.ToLower(strings.ReplaceAll(c.Algorithm, "-", ""))
	if digest == "" {
		digest = "sha256"
	}
	enc := (&pbkdf2Hash{digest: digest, iterations: c.IterationAmount, salt: salt, key: key}).encode()
	if _, err := parsePBKDF2(enc); err != nil {
		return "", err
	}
	return enc, nil
}

// decodeAny accepts standard or URL base64, padded or not, because
// exporters differ.
func decodeAny(s string) ([]byte, error) {
	s = strings.TrimRight(strings.TrimSpace(s), "=")
	for _, enc := range []*base64.Encoding{base64.RawStdEncoding, base64.RawURLEncoding} {
		if b, err := enc.DecodeString(s); err == nil && len(b) > 0 {
			return b, nil
		}
	}
	return nil, fmt.Errorf("%w: hash must be base64 (or a PHC string)", ErrMalformed)
}
