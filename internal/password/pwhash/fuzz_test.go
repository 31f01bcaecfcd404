package pwhash

import (
	"errors"
	"testing"
)

// FuzzParse feeds the stored-hash parser arbitrary strings (imported
// hashes come from outside, through passwords/migrate): it never panics,
// refusals are ErrMalformed, and an accepted hash's cost is within the
// bounds that keep one login from becoming a denial of service. Verify
// itself is not run: at the bounds it is legitimately expensive.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		"$argon2id$v=19$m=65536,t=2,p=4$c29tZXNhbHQ$RdescudvJCsgt3ub+b+dWRWJTmaaJObG",
		"$argon2i$v=19$m=8,t=1,p=1$c2FsdHNhbHQ$aGFzaGhhc2hoYXNoaGFzaA",
		"$argon2id$v=19$m=4294967295,t=4294967295,p=255$c2FsdA$aGFzaA",
		"$argon2id$m=65536,t=2,p=4$c29tZXNhbHQ$RdescudvJCsgt3ub",
		"$2a$10$N9qo8uLOickgx2ZMRZoMyeIjZAgcfl7p92ldGxad68LJZdL17lhWy",
		"$2b$31$N9qo8uLOickgx2ZMRZoMyeIjZAgcfl7p92ldGxad68LJZdL17lhWy",
		"$scrypt$ln=15,r=8,p=1$c2FsdHNhbHQ$aGFzaGhhc2hoYXNoaGFzaA",
		"$scrypt$ln=64,r=99999,p=99999$c2FsdA$aGFzaA",
		"$pbkdf2-sha256$29000$c2FsdHNhbHQ$aGFzaGhhc2hoYXNoaGFzaA",
		"$pbkdf2-sha512$99999999999$c2FsdA$aGFzaA",
		"$argon2id$v=19$m=65536,t=2,p=4,m=1$c2FsdA$aGFzaA",
		"$digest-md5$cGVwJHBlcg$c2E6bHQ$M31FFEX4LK8Qaa67zZKerQ",
		"$digest-sha512$$$sQnzu7wkTrgkQZF+0G1hi5AI3Qmzvv0bXgc5THBqi7mAsdd4Xll27ASbRt9fEyavWi6m0QP9B8lThf+rDKy8hg",
		"$digest-sha1$$$$W6ph5Mm5Pz8GgiULbPgzG37mj9g",
		"",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, encoded string) {
		v, err := parse(encoded)
		if err != nil {
			if !errors.Is(err, ErrMalformed) {
				t.Fatalf("parse(%q): %v does not wrap ErrMalformed", encoded, err)
			}
			return
		}
		switch h := v.(type) {
		case *argon2Hash:
			p := h.params
			if p.m > maxArgonMemoryKiB || p.t > maxArgonIterations || p.t < 1 || p.p < 1 || p.m < 8*uint32(p.p) {
				t.Fatalf("parse(%q) accepted argon2 cost %+v", encoded, p)
			}
			if _, err := parse(encodeArgon2(h.variant, p, h.salt, h.key)); err != nil {
				t.Fatalf("re-encoded %q does not parse: %v", encoded, err)
			}
		case *scryptHash:
			if err := h.checkCost(); err != nil {
				t.Fatalf("parse(%q) accepted scrypt cost: %v", encoded, err)
			}
			if _, err := parse(h.encode()); err != nil {
				t.Fatalf("re-encoded %q does not parse: %v", encoded, err)
			}
		case *pbkdf2Hash:
			if h.iterations < 1 || h.iterations > maxPBKDF2Iterations {
				t.Fatalf("parse(%q) accepted pbkdf2 iterations %d", encoded, h.iterations)
			}
			if _, err := parse(h.encode()); err != nil {
				t.Fatalf("re-encoded %q does not parse: %v", encoded, err)
			}
		case *digestHash:
			if len(h.prepend) > maxDigestSalt || len(h.append) > maxDigestSalt || len(h.sum) != digestKinds[h.alg]().Size() {
				t.Fatalf("parse(%q) accepted a %s digest of %d bytes with salts of %d and %d", encoded, h.alg, len(h.sum),
					len(h.prepend), len(h.append))
			}
			if _, err := parse(h.encode()); err != nil {
				t.Fatalf("re-encoded %q does not parse: %v", encoded, err)
			}
		case *bcryptHash:
		default:
			t.Fatalf("parse(%q) returned %T", encoded, v)
		}
		if Kind(encoded) == "" {
			t.Fatalf("Kind(%q) is empty for a hash that parses", encoded)
		}
	})
}
