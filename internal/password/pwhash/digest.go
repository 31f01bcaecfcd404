package pwhash

import (
	"crypto/md5"
	"crypto/sha1"
	"crypto/sha512"
	"encoding/hex"
	"fmt"
	"hash"
	"strings"
)

// maxDigestSalt bounds each salt of an imported digest, in bytes: far above
// what real systems use, and it keeps the stored row small.
const maxDigestSalt = 1024

// digestKinds are the salted fast digests passwords/migrate imports (md_5,
// sha_1, sha_512), by the name their stored form carries.
var digestKinds = map[string]func() hash.Hash{"md5": md5.New, "sha1": sha1.New, "sha512": sha512.New}

// digestHash is H(prepend + password + append) from another system, stored
// as "$digest-<md5|sha1|sha512>$<prepend>$<append>$<digest>" with the
// salts and the digest in PHC base64, so a salt may hold any byte ("$"
// included) and an empty salt is an empty field. These digests are fast,
// which is why they are only ever imported: the first successful login
// replaces one with argon2id (NeedsUpgrade).
type digestHash struct {
	alg             string
	prepend, append []byte
	sum             []byte
}

func (d *digestHash) kind() string { return d.alg }
func (d *digestHash) lanes() int   { return 1 }

func (d *digestHash) verify(password string) (bool, error) {
	h := digestKinds[d.alg]()
	h.Write(d.prepend)
	h.Write([]byte(password))
	h.Write(d.append)
	return equal(h.Sum(nil), d.sum), nil
}

func (d *digestHash) encode() string {
	return fmt.Sprintf("$digest-%s$%s$%s$%s", d.alg, b64.EncodeToString(d.prepend), b64.EncodeToString(d.append),
		b64.EncodeToString(d.sum))
}

func parseDigest(encoded string) (*digestHash, error) {
	parts := strings.Split(encoded, "$")
	if len(parts) != 5 || parts[0] != "" {
		return nil, fmt.Errorf("%w: a digest needs $digest-<alg>$prepend$append$hash", ErrMalformed)
	}
	d := &digestHash{alg: strings.TrimPrefix(parts[1], "digest-")}
	newHash, ok := digestKinds[d.alg]
	if !ok {
		return nil, fmt.Errorf("%w: digest must be md5, sha1 or sha512", ErrMalformed)
	}
	var err error
	if d.prepend, err = b64.DecodeString(parts[2]); err != nil || len(d.prepend) > maxDigestSalt {
		return nil, fmt.Errorf("%w: digest salts must be base64 of at most %d bytes", ErrMalformed, maxDigestSalt)
	}
	if d.append, err = b64.DecodeString(parts[3]); err != nil || len(d.append) > maxDigestSalt {
		return nil, fmt.Errorf("%w: digest salts must be base64 of at most %d bytes", ErrMalformed, maxDigestSalt)
	}
	if d.sum, err = b64.DecodeString(parts[4]); err != nil || len(d.sum) != newHash().Size() {
		return nil, fmt.Errorf("%w: a %s hash is %d bytes", ErrMalformed, d.alg, newHash().Size())
	}
	return d, nil
}

// normalizeDigest takes an md_5, sha_1 or sha_512 import: h is the hex
// digest, as those systems store and export it, in either case. The API
// family asks for base64 only for scrypt and PBKDF2 hashes, so base64 is
// not guessed at here: a base64 digest is refused with a message rather
// than risk reading it as something else. Without a config there is no
// salt.
func normalizeDigest(h, hashType, alg string, c *SaltConfig) (string, error) {
	if c == nil {
		c = &SaltConfig{}
	}
	if len(c.PrependSalt) > maxDigestSalt || len(c.AppendSalt) > maxDigestSalt {
		return "", fmt.Errorf("%w: %s salts must be at most %d bytes", ErrMalformed, hashType, maxDigestSalt)
	}
	size := digestKinds[alg]().Size()
	sum, err := hex.DecodeString(h)
	if err != nil || len(sum) != size {
		return "", fmt.Errorf("%w: a %s hash must be the %d-character hex digest", ErrMalformed, hashType, 2*size)
	}
	return (&digestHash{alg: alg, prepend: []byte(c.PrependSalt), append: []byte(c.AppendSalt), sum: sum}).encode(), nil
}
