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
