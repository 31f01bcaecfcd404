package rsasign

import (
	"bytes"
	"crypto"
	"crypto/fips140"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"math/big"
	"os"
	"os/exec"
	"strings"
	"testing"
)

func newKey(t testing.TB, bits int) *rsa.PrivateKey {
	t.Helper()
	k, err := rsa.GenerateKey(rand.Reader, bits)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// PKCS #1 v1.5 signatures are deterministic: the fast path must give
// crypto/rsa's bytes exactly, for many keys and messages, including the
// digests at the edges.
func TestSignMatchesCryptoRSA(t *testing.T) {
	if !supported || fips140.Enabled() {
		t.Skip("no AVX-512 IFMA on this CPU, or FIPS mode: New signs with crypto/rsa (covered by TestOtherKeysUseCryptoRSA)")
	}
	before := fallbacks.Load()
	for range 6 {
		priv := newKey(t, 2048)
		checkKey(t, "generated", priv, 40)
		d := sha256.Sum256([]byte("through Sign"))
		want, _ := rsa.SignPKCS1v15(nil, priv, crypto.SHA256, d[:])
		if got, err := New(priv).Sign(rand.Reader, d[:], crypto.SHA256); err != nil || !bytes.Equal(got, want) {
			t.Fatalf("Sign = %x, %v", got, err)
		}
	}
	if n := fallbacks.Load() - before; n != 0 {
		t.Fatalf("%d signatures failed their check and fell back", n)
	}
}

// A key without its precomputed values is signed by crypto/rsa, untouched.
func TestKeyWithoutPrecomputedValues(t *testing.T) {
	priv := newKey(t, 2048)
	bare := &rsa.PrivateKey{PublicKey: priv.PublicKey, D: priv.D, Primes: priv.Primes}
	k := New(bare)
	if k.Fast() || bare.Precomputed.Dp != nil {
		t.Fatal("a key without precomputed values took the fast path or was changed")
	}
	d := sha256.Sum256([]byte("bare"))
	got, err := k.Sign(rand.Reader, d[:], crypto.SHA256)
	if err != nil {
		t.Fatal(err)
	}
	if err := rsa.VerifyPKCS1v15(&priv.PublicKey, crypto.SHA256, d[:], got); err != nil {
		t.Fatal(err)
	}
}

// In FIPS 140-3 mode every signature is crypto/rsa's: the test runs
// itself again with GODEBUG=fips140=on.
func TestFIPSModeUsesCryptoRSA(t *testing.T) {
	if fips140.Enabled() {
		if New(newKey(t, 2048)).Fast() {
			t.Fatal("FIPS mode signs on the fast path")
		}
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestFIPSModeUsesCryptoRSA$", "-test.count=1", "-test.v")
	cmd.Env = append(os.Environ(), "GODEBUG=fips140=on")
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "--- PASS: TestFIPSModeUsesCryptoRSA") {
		t.Fatalf("FIPS-mode run: %v\n%s", err, out)
	}
}

// Other sizes, other hashes and PSS are crypto/rsa's, and still sign.
func TestOtherKeysUseCryptoRSA(t *testing.T) {
	for _, bits := range []int{1024, 3072} {
		priv := newKey(t, bits)
		k := New(priv)
		if k.Fast() {
			t.Fatalf("a %d-bit key took the fast path", bits)
		}
		d := sha256.Sum256([]byte("x"))
		sig, err := k.Sign(rand.Reader, d[:], crypto.SHA256)
		if err != nil {
			t.Fatal(err)
		}
		if err := rsa.VerifyPKCS1v15(&priv.PublicKey, crypto.SHA256, d[:], sig); err != nil {
			t.Fatalf("%d bits: %v", bits, err)
		}
	}
	priv := newKey(t, 2048)
	k := New(priv)
	d := sha256.Sum256([]byte("pss"))
	sig, err := k.Sign(rand.Reader, d[:], &rsa.PSSOptions{Hash: crypto.SHA256})
	if err != nil {
		t.Fatal(err)
	}
	if err := rsa.VerifyPSS(&priv.PublicKey, crypto.SHA256, d[:], sig, nil); err != nil {
		t.Fatal(err)
	}
}

// amm2 against math/big: the result is congruent to a·b·R⁻¹ and below 2m,
// for operands up to 4m.
func TestAMMAgainstBig(t *testing.T) {
	if !supported {
		t.Skip("no AVX-512 IFMA on this CPU")
	}
	priv := newKey(t, 2048)
	k := prepare(priv)
	R := new(big.Int).Lsh(big.NewInt(1), 1040)
	for h, p := range priv.Primes {
		rinv := new(big.Int).ModInverse(R, p)
		// The edges first: zero, one, p-1, p, 2p-1, 4p-1, 2^1030-1 and the
		// largest operand with a·a < m·R (the bound for a result below 2m),
		// in every combination.
		one := big.NewInt(1)
		edges := []*big.Int{new(big.Int), one, new(big.Int).Sub(p, one), p,
			new(big.Int).Sub(new(big.Int).Lsh(p, 1), one), new(big.Int).Sub(new(big.Int).Lsh(p, 2), one),
			new(big.Int).Sub(new(big.Int).Lsh(one, 1030), one), new(big.Int).Sqrt(new(big.Int).Sub(new(big.Int).Mul(p, R), one))}
		var cases [][2]*big.Int
		for _, a := range edges {
			for _, b := range edges {
				cases = append(cases, [2]*big.Int{a, b})
			}
		}
		for range 200 {
			a, _ := rand.Int(rand.Reader, new(big.Int).Lsh(p, 2))
			b, _ := rand.Int(rand.Reader, new(big.Int).Lsh(p, 2))
			cases = append(cases, [2]*big.Int{a, b})
		}
		for _, c := range cases {
			a, b := c[0], c[1]
			var pa, pb pair
			pa.set(h, lanesOf(a))
			pb.set(h, lanesOf(b))
			amm2(&pb, &pa, &pb, &k.m, &k.k0) // out may alias b (and a: the squarings)
			out := pb
			got := bigOf(out.half(h))
			want := new(big.Int).Mul(a, b)
			want.Mul(want, rinv).Mod(want, p)
			if got.Cmp(new(big.Int).Lsh(p, 1)) >= 0 || new(big.Int).Mod(got, p).Cmp(want) != 0 {
				t.Fatalf("amm2(%x, %x) = %x, want %x mod p and below 2p", a, b, got, want)
			}
			for _, l := range out {
				if l > mask52 {
					t.Fatal("a lane of the result is not normalized")
				}
			}
		}
	}
}

// select2 picks each half's entry.
func TestSelect2(t *testing.T) {
	if !supported {
		t.Skip("no AVX-512 IFMA on this CPU")
	}
	var tab [tableSize]pair
	for i := range tab {
		for j := range tab[i] {
			tab[i][j] = uint64(i)<<32 | uint64(j)
		}
	}
	for iP := range uint64(tableSize) {
		iQ := (iP * 7) % tableSize
		var out pair
		select2(&out, &tab, iP, iQ)
		for j := range lanes {
			if out[j] != tab[iP][j] || out[lanes+j] != tab[iQ][lanes+j] {
				t.Fatalf("select2(%d, %d) lane %d wrong", iP, iQ, j)
			}
		}
	}
}

func lanesOf(x *big.Int) *lanes52 {
	n := natOf(x.FillBytes(make([]byte, 8*wide)))
	l := to52(&n)
	return &l
}

func bigOf(l lanes52) *big.Int {
	n := from52(&l)
	b := make([]byte, 8*wide)
	bytesOf(b, n[:])
	return new(big.Int).SetBytes(b)
}

func BenchmarkSign(b *testing.B) {
	priv := newKey(b, 2048)
	d := sha256.Sum256([]byte("bench"))
	b.Run("rsasign", func(b *testing.B) {
		k := New(priv)
		for b.Loop() {
			if _, err := k.Sign(nil, d[:], crypto.SHA256); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("crypto-rsa", func(b *testing.B) {
		for b.Loop() {
			if _, err := rsa.SignPKCS1v15(nil, priv, crypto.SHA256, d[:]); err != nil {
				b.Fatal(err)
			}
		}
	})
}

func BenchmarkPrepare(b *testing.B) {
	priv := newKey(b, 2048)
	for b.Loop() {
		prepare(priv)
	}
}
