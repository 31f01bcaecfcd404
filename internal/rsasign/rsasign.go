// Package rsasign makes RS256 signatures (RSASSA-PKCS1-v1_5 with SHA-256)
// about three times faster than crypto/rsa on CPUs with AVX-512 IFMA.
//
// Every login signs a session JWT, and the SDKs pin RS256 with 2048-bit
// keys. crypto/rsa spends about 0.75 ms of a core on one signature on the
// benchmark machine (an AMD EPYC with AVX-512 IFMA), where OpenSSL, using
// those instructions, spends 0.21 ms: at OWASP's argon2 cost that
// difference alone was the gap between password logins and the 90%-of-
// hashing target.
//
// The fast path computes the two CRT exponentiations side by side in
// radix 2^52 with 52-bit multiply-adds (amm_amd64.s), in constant time:
// the instructions run and the memory touched depend on the sizes only,
// never on the key or the message (a fixed 5-bit window whose table entry
// is picked by reading every entry, no conditional subtraction inside the
// exponentiation). Each signature is then checked with the public key
// before it is returned, as crypto/rsa does, so that neither a fault nor a
// defect here can release a wrong signature (a wrong CRT signature would
// reveal the key): on a failed check the signature is made again by
// crypto/rsa.
//
// Keys the fast path does not cover (other sizes, more than two primes),
// CPUs without the instructions and FIPS 140-3 mode go to crypto/rsa.
package rsasign

import (
	"crypto"
	"crypto/fips140"
	"crypto/rsa"
	"crypto/sha256"
	"io"
	"math/big"
	"sync"
	"sync/atomic"
)

// Key is a crypto.Signer for an RSA private key.
type Key struct {
	priv *rsa.PrivateKey
	// fast is prepared at the first signature (about 0.2 ms; keys loaded
	// only to verify never pay it). nil: every signature by crypto/rsa.
	once sync.Once
	fast *crtKey
}

// crtKey is what the fast path keeps of a key: for each prime m (P = p,
// Q = q, each 1024 bits) the lanes of m, −m⁻¹ mod 2^52, and the powers of
// two it uses reduced mod m.
type crtKey struct {
	m, one, rr, k2 pair // m; R, R², 2^1024·R² mod m (R = 2^1040), each below 2m
	k0             [2]uint64
	p, q           nat
	dp, dq         nat
	qinvR          pair // P half: q⁻¹·R mod p
}

// fallbacks counts fast signatures that failed their check.
var fallbacks atomic.Uint64

// Fallbacks is how many fast signatures failed their check against the
// public key and were made again by crypto/rsa since the process started
// (a metric: anything but zero is a fault of the CPU or of this package).
func Fallbacks() uint64 { return fallbacks.Load() }

// New returns a signer for priv, on the fast path when it can be.
func New(priv *rsa.PrivateKey) *Key { return &Key{priv: priv} }

// ready prepares the fast path once and returns it (nil without one).
func (k *Key) ready() *crtKey {
	k.once.Do(func() {
		// In FIPS 140-3 mode (GODEBUG=fips140=on) every signature must come
		// from the validated module, crypto/rsa.
		if supported && !fips140.Enabled() {
			k.fast = prepare(k.priv)
		}
	})
	return k.fast
}

// Fast reports whether k signs on the fast path.
func (k *Key) Fast() bool { return k.ready() != nil }

// Public returns the public key.
func (k *Key) Public() crypto.PublicKey { return &k.priv.PublicKey }

// Sign signs digest. SHA-256 PKCS #1 v1.5 signatures take the fast path
// when the key has one; everything else is crypto/rsa's.
func (k *Key) Sign(rand io.Reader, digest []byte, opts crypto.SignerOpts) ([]byte, error) {
	_, pss := opts.(*rsa.PSSOptions)
	if pss || opts.HashFunc() != crypto.SHA256 || len(digest) != sha256.Size || k.ready() == nil {
		return k.priv.Sign(rand, digest, opts)
	}
	sig := k.fast.sign(digest)
	if rsa.VerifyPKCS1v15(&k.priv.PublicKey, crypto.SHA256, digest, sig) != nil {
		fallbacks.Add(1)
		return rsa.SignPKCS1v15(rand, k.priv, crypto.SHA256, digest)
	}
	return sig, nil
}

// prepare returns the fast path's form of priv, or nil when the key is
// not a precomputed two-prime 2048-bit key of 1024-bit primes.
func prepare(priv *rsa.PrivateKey) *crtKey {
	if priv.N == nil || priv.N.BitLen() != 2048 || len(priv.Primes) != 2 {
		return nil
	}
	for _, p := range priv.Primes {
		if p == nil || p.BitLen() != 1024 {
			return nil
		}
	}
	// Parsed and generated keys come precomputed; one that is not is left
	// to crypto/rsa rather than changed under its other users.
	// A hand-built key may carry values out of range (an unreduced
	// exponent): those are crypto/rsa's to refuse. Within 1024 bits every
	// value is safe here, and a wrong one fails the signature's check.
	pre := priv.Precomputed
	for _, v := range []*big.Int{pre.Dp, pre.Dq, pre.Qinv} {
		if v == nil || v.Sign() < 0 || v.BitLen() > 1024 {
			return nil
		}
	}
	const size = 8 * wide
	b := func(x interface{ FillBytes([]byte) []byte }) []byte { return x.FillBytes(make([]byte, size)) }
	k := &crtKey{p: natOf(b(priv.Primes[0])), q: natOf(b(priv.Primes[1])), dp: natOf(b(pre.Dp)), dq: natOf(b(pre.Dq))}
	for h, m := range []*nat{&k.p, &k.q} {
		m52 := to52(m)
		k.m.set(h, &m52)
		// k0 = −m⁻¹ mod 2^52. Newton's iteration doubles the correct low
		// bits of an inverse; an odd m is its own inverse mod 8.
		inv := m[0]
		for range 5 {
			inv *= 2 - m[0]*inv
		}
		k.k0[h] = -inv & mask52
		// R = 2^1040, 2^65·R and 2^129·R mod m, by doubling 1 (m is
		// secret: no division, only constant-time steps).
		x := nat{1}
		for i := 1; i <= 1040+129; i++ {
			double(&x, m)
			switch i {
			case 1040:
				v := to52(&x)
				k.one.set(h, &v)
			case 1040 + 65:
				v := to52(&x)
				k.rr.set(h, &v)
			}
		}
		v := to52(&x)
		k.k2.set(h, &v)
	}
	// Four Montgomery squarings take 2^a·R to 2^16a·R: 2^65·R to
	// 2^1040·R = R², and 2^129·R to 2^2064·R = 2^1024·R². Cheaper than
	// doubling on to 2^3104 (a third of the time).
	for range 4 {
		amm2(&k.rr, &k.rr, &k.rr, &k.m, &k.k0)
		amm2(&k.k2, &k.k2, &k.k2, &k.m, &k.k0)
	}
	var qinv pair
	qn := natOf(b(pre.Qinv))
	q52 := to52(&qn)
	qinv.set(0, &q52)
	amm2(&k.qinvR, &qinv, &k.rr, &k.m, &k.k0)
	return k
}

// sha256Prefix is the DER DigestInfo header of a SHA-256 hash (RFC 8017,
// section 9.2, note 1).
var sha256Prefix = []byte{0x30, 0x31, 0x30, 0x0d, 0x06, 0x09, 0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x02, 0x01, 0x05, 0x00, 0x04, 0x20}

// sign returns the PKCS #1 v1.5 signature of a SHA-256 digest.
func (k *crtKey) sign(digest []byte) []byte {
	// EM = 0x00 0x01 0xff… 0x00 DigestInfo digest, 256 bytes.
	var em [256]byte
	em[1] = 0x01
	t := len(em) - len(sha256Prefix) - len(digest)
	for i := 2; i < t-1; i++ {
		em[i] = 0xff
	}
	copy(em[t:], sha256Prefix)
	copy(em[t+len(sha256Prefix):], digest)

	// c·R mod m for both primes, from c = hi·2^1024 + lo: AMM(hi,
	// 2^1024·R²) + AMM(lo, R²). hi and lo are below 2^1024, small enough
	// for AMM unreduced.
	hi, lo := natOf(em[:128]), natOf(em[128:])
	hi52, lo52 := to52(&hi), to52(&lo)
	var cHi, cLo, base, tmp pair
	for h := range 2 {
		cHi.set(h, &hi52)
		cLo.set(h, &lo52)
	}
	amm2(&base, &cHi, &k.k2, &k.m, &k.k0)
	amm2(&tmp, &cLo, &k.rr, &k.m, &k.k0)
	for i := range base {
		base[i] += tmp[i]
	}
	normalize(&base)

	// c^dp mod p and c^dq mod q, with a fixed window.
	var tab [tableSize]pair
	tab[0], tab[1] = k.one, base
	for i := 2; i < tableSize; i++ {
		amm2(&tab[i], &tab[i-1], &base, &k.m, &k.k0)
	}
	var x pair
	select2(&x, &tab, windowOf(&k.dp, 0), windowOf(&k.dq, 0))
	for w := 1; w < windows; w++ {
		for range window {
			amm2(&x, &x, &x, &k.m, &k.k0)
		}
		select2(&tmp, &tab, windowOf(&k.dp, w), windowOf(&k.dq, w))
		amm2(&x, &x, &tmp, &k.m, &k.k0)
	}
	// Out of Montgomery form: AMM(x, 1) is at most m; then below m.
	var one pair
	one[0], one[lanes] = 1, 1
	amm2(&x, &x, &one, &k.m, &k.k0)
	xp, xq := x.half(0), x.half(1)
	m1, m2 := from52(&xp), from52(&xq)
	subIfGE(&m1, &k.p)
	subIfGE(&m2, &k.q)

	// Garner: s = m2 + q·(q⁻¹·(m1 − m2) mod p).
	d := m2
	subIfGE(&d, &k.p) // m2 mod p: q < 2p
	subMod(&m1, &d, &k.p)
	var dp pair
	d52 := to52(&m1)
	dp.set(0, &d52)
	amm2(&dp, &dp, &k.qinvR, &k.m, &k.k0)
	hp := dp.half(0)
	h := from52(&hp)
	subIfGE(&h, &k.p)
	s := mulAdd(&h, &k.q, &m2)
	sig := make([]byte, 256)
	bytesOf(sig, s[:])
	return sig
}
