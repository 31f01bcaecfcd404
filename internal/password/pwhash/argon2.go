package pwhash

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/latchkey/latchkey/third_party/argon2"
)

// Bounds on stored and configured argon2 costs: an absurd stored cost
// would turn every login of that member into a denial of service. An
// import must also pass tighter bounds (maxImportArgonMemoryKiB).
const (
	maxArgonMemoryKiB  = 1 << 20 // 1 GiB
	maxArgonIterations = 64
	minSaltLen         = 8
	minKeyLen          = 16
	maxKeyLen          = 128
)

type argon2Params struct {
	m uint32
	t uint32
	p uint8
}

type argon2Hash struct {
	variant string // argon2i or argon2id
	params  argon2Params
	salt    []byte
	key     []byte
}

func (a *argon2Hash) kind() string { return a.variant }

// lanes: x/crypto's argon2 processes the p lanes of each slice in parallel.
func (a *argon2Hash) lanes() int { return int(a.params.p) }

func (a *argon2Hash) verify(password string) (bool, error) {
	var got []byte
	if a.variant == "argon2id" {
		got = argon2.IDKey([]byte(password), a.salt, a.params.t, a.params.m, a.params.p, uint32(len(a.key)))
	} else {
		got = argon2.Key([]byte(password), a.salt, a.params.t, a.params.m, a.params.p, uint32(len(a.key)))
	}
	return equal(got, a.key), nil
}

func encodeArgon2(variant string, p argon2Params, salt, key []byte) string {
	return fmt.Sprintf("$%s$v=%d$m=%d,t=%d,p=%d$%s$%s", variant, argon2.Version, p.m, p.t, p.p,
		b64.EncodeToString(salt), b64.EncodeToString(key))
}

// parseArgon2 reads "$argon2id$v=19$m=65536,t=2,p=4$<salt>$<hash>". Only
// version 19 (what x/crypto implements, and every encoder's default since
// 2016) is accepted. A missing version field means version 16 to the
// reference encoder, which x/crypto cannot compute, so it is rejected
// rather than silently never matching.
func parseArgon2(encoded string) (*argon2Hash, error) {
	parts := strings.Split(encoded, "$")
	if len(parts) != 6 || parts[0] != "" {
		return nil, fmt.Errorf("%w: argon2 needs $variant$v=$params$salt$hash", ErrMalformed)
	}
	a := &argon2Hash{variant: parts[1]}
	if parts[2] != "v="+strconv.Itoa(argon2.Version) {
		return nil, fmt.Errorf("%w: only argon2 version %d is supported", ErrMalformed, argon2.Version)
	}
	kv, err := phcParams(parts[3], "m", "t", "p")
	if err != nil {
		return nil, err
	}
	if kv["p"] < 1 || kv["p"] > 255 || kv["t"] < 1 || kv["t"] > maxArgonIterations ||
		kv["m"] < 8*kv["p"] || kv["m"] > maxArgonMemoryKiB {
		return nil, fmt.Errorf("%w: argon2 cost out of range", ErrMalformed)
	}
	a.params = argon2Params{m: uint32(kv["m"]), t: uint32(kv["t"]), p: uint8(kv["p"])}
	if a.salt, a.key, err = saltAndKey(parts[4], parts[5]); err != nil {
		return nil, err
	}
	return a, nil
}

// phcParams parses "a=1,b=2" requiring exactly the named integer keys.
func phcParams(s string, names ...string) (map[string]int64, error) {
	out := map[string]int64{}
	for _, kv := range strings.Split(s, ",") {
		k, v, ok := strings.Cut(kv, "=")
		if !ok {
			return nil, fmt.Errorf("%w: parameter %q", ErrMalformed, kv)
		}
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n < 0 {
			return nil, fmt.Errorf("%w: parameter %q", ErrMalformed, kv)
		}
		if _, dup := out[k]; dup {
			return nil, fmt.Errorf("%w: repeated parameter %q", ErrMalformed, k)
		}
		out[k] = n
	}
	if len(out) != len(names) {
		return nil, fmt.Errorf("%w: want parameters %v", ErrMalformed, names)
	}
	for _, n := range names {
		if _, ok := out[n]; !ok {
			return nil, fmt.Errorf("%w: missing parameter %q", ErrMalformed, n)
		}
	}
	return out, nil
}

// saltAndKey decodes the base64 salt and key of a PHC string (padding is
// tolerated because some encoders emit it).
func saltAndKey(salt, key string) ([]byte, []byte, error) {
	s, err := b64.DecodeString(strings.TrimRight(salt, "="))
	if err != nil || len(s) < minSaltLen {
		return nil, nil, fmt.Errorf("%w: salt must be base64 of at least %d bytes", ErrMalformed, minSaltLen)
	}
	k, err := b64.DecodeString(strings.TrimRight(key, "="))
	if err != nil || len(k) < minKeyLen || len(k) > maxKeyLen {
		return nil, nil, fmt.Errorf("%w: hash must be base64 of %d to %d bytes", ErrMalformed, minKeyLen, maxKeyLen)
	}
	return s, k, nil
}
