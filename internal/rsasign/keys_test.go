package rsasign

import (
	"bytes"
	"crypto"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"math/big"
	"sync"
	"testing"
)

// keyOf builds a validated, precomputed key from two primes (Primes[0] = p).
func keyOf(t *testing.T, p, q *big.Int) *rsa.PrivateKey {
	t.Helper()
	e := big.NewInt(65537)
	one := big.NewInt(1)
	pm, qm := new(big.Int).Sub(p, one), new(big.Int).Sub(q, one)
	phi := new(big.Int).Mul(pm, qm)
	d := new(big.Int).ModInverse(e, phi)
	if d == nil {
		t.Fatalf("e not invertible")
	}
	priv := &rsa.PrivateKey{PublicKey: rsa.PublicKey{N: new(big.Int).Mul(p, q), E: 65537}, D: d, Primes: []*big.Int{p, q}}
	priv.Precompute()
	if err := priv.Validate(); err != nil {
		t.Fatal(err)
	}
	return priv
}

// primeFrom returns the first prime from start stepping by step (±2) with
// gcd(e, prime-1) = 1.
func primeFrom(start *big.Int, step int64) *big.Int {
	x := new(big.Int).Set(start)
	if x.Bit(0) == 0 {
		x.Add(x, big.NewInt(step/2))
	}
	e := big.NewInt(65537)
	for {
		if x.ProbablyPrime(20) && new(big.Int).Mod(new(big.Int).Sub(x, big.NewInt(1)), e).Sign() != 0 {
			return new(big.Int).Set(x)
		}
		x.Add(x, big.NewInt(step))
	}
}

// checkKey compares the fast signatures of the all-zero and all-ones
// digests and of n random ones with crypto/rsa's.
func checkKey(t *testing.T, name string, priv *rsa.PrivateKey, n int) {
	t.Helper()
	k := New(priv)
	if !k.Fast() {
		t.Fatalf("%s: not on the fast path", name)
	}
	digests := [][]byte{make([]byte, 32), bytes.Repeat([]byte{0xff}, 32)}
	for range n {
		d := make([]byte, 32)
		rand.Read(d)
		digests = append(digests, d)
	}
	for _, d := range digests {
		want, err := rsa.SignPKCS1v15(nil, priv, crypto.SHA256, d)
		if err != nil {
			t.Fatal(err)
		}
		if got := k.fast.sign(d); !bytes.Equal(got, want) {
			t.Fatalf("%s: fast signature of %x differs from crypto/rsa's", name, d)
		}
	}
}

// Primes at the edges of the 1024-bit range, in both orders (p < q and
// p > q), and q/p close to 2 (the Garner step's single subtraction for
// m2 mod p); then generated keys with their primes swapped.
func TestEdgePrimes(t *testing.T) {
	if !supported {
		t.Skip("no IFMA")
	}
	one := big.NewInt(1)
	lowP := primeFrom(new(big.Int).Lsh(one, 1023), 2)                                      // just above 2^1023
	highQ := primeFrom(new(big.Int).Sub(new(big.Int).Lsh(one, 1024), one), -2)             // just below 2^1024
	low2 := primeFrom(new(big.Int).Add(new(big.Int).Lsh(one, 1023), big.NewInt(1<<20)), 2) // N must be 2048 bits
	sq := new(big.Int).Sqrt(new(big.Int).Lsh(one, 2047))                                   // both near sqrt(2)·2^1023
	sqA := primeFrom(new(big.Int).Add(sq, big.NewInt(1)), 2)
	sqB := primeFrom(new(big.Int).Add(sqA, new(big.Int).Lsh(one, 930)), 2) // FIPS: |p-q| > 2^924
	pairs := []struct {
		name string
		p, q *big.Int
	}{
		{"p~2^1023,q~2^1024", lowP, highQ},
		{"p~2^1024,q~2^1023", highQ, lowP},
		{"p~2^1023+2^20,q~2^1024", low2, highQ},
		{"q~2^1024,p~2^1023+2^20", highQ, low2},
		{"both~sqrt2", sqA, sqB},
		{"both~sqrt2 swapped", sqB, sqA},
	}
	for _, c := range pairs {
		n := new(big.Int).Mul(c.p, c.q)
		if n.BitLen() != 2048 {
			t.Fatalf("%s: N is %d bits", c.name, n.BitLen())
		}
		checkKey(t, c.name, keyOf(t, c.p, c.q), 30)
	}
	// Random keys with the primes in both orders.
	for range 4 {
		g := newKey(t, 2048)
		checkKey(t, "generated", g, 10)
		checkKey(t, "generated swapped", keyOf(t, g.Primes[1], g.Primes[0]), 10)
	}
}

// Hand-built keys (out-of-range precomputed values, a nil prime): Sign
// does what crypto/rsa does (an error, or the same signature), and the
// lazy preparation does not panic.
func TestMalformedKeysAsCryptoRSA(t *testing.T) {
	g := newKey(t, 2048)
	cases := map[string]*rsa.PrivateKey{
		// Dp = d (2048 bits) instead of d mod (p-1): FillBytes into 144 bytes panics.
		"unreduced Dp": {PublicKey: g.PublicKey, D: g.D, Primes: g.Primes,
			Precomputed: rsa.PrecomputedValues{Dp: g.D, Dq: g.D, Qinv: g.Precomputed.Qinv}},
		// A nil prime, with a complete Precomputed (crypto/rsa signs with
		// its internal key): prepare calls BitLen on the nil prime.
		"nil prime": {PublicKey: g.PublicKey, D: g.D, Primes: []*big.Int{nil, g.Primes[1]},
			Precomputed: g.Precomputed},
	}
	d := sha256.Sum256([]byte("x"))
	for name, bad := range cases {
		t.Run(name, func(t *testing.T) {
			want, wantErr := rsa.SignPKCS1v15(nil, bad, crypto.SHA256, d[:])
			t.Logf("crypto/rsa.SignPKCS1v15: err = %v", wantErr)
			defer func() {
				if r := recover(); r != nil {
					t.Fatalf("rsasign.Key.Sign panicked (crypto/rsa: err = %v): %v", wantErr, r)
				}
			}()
			got, err := New(bad).Sign(rand.Reader, d[:], crypto.SHA256)
			if (err == nil) != (wantErr == nil) || !bytes.Equal(got, want) {
				t.Fatalf("rsasign: err = %v, crypto/rsa: err = %v", err, wantErr)
			}
		})
	}
}

// One Key shared by many goroutines from its first use (the lazy
// preparation; run with -race).
func TestConcurrentFirstUse(t *testing.T) {
	priv := newKey(t, 2048)
	k := New(priv)
	d := sha256.Sum256([]byte("concurrent"))
	want, _ := rsa.SignPKCS1v15(nil, priv, crypto.SHA256, d[:])
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 20 {
				got, err := k.Sign(rand.Reader, d[:], crypto.SHA256)
				if err != nil || !bytes.Equal(got, want) {
					t.Errorf("concurrent Sign: %v", err)
					return
				}
			}
		})
	}
	wg.Wait()
}
