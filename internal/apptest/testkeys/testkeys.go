// Package testkeys hands tests RSA-2048 keys from a pool generated once
// and committed (testdata/keys.pem), instead of generating each: a
// project's signing key and a SAML connection's service-provider key are
// fresh RSA-2048 keys, about 100 ms of CPU apiece, and generating them
// was two thirds of the CPU the test suites spent. Test support only: no
// production package may import it, or the server would sign with keys
// published in its source.
package testkeys

import (
	"crypto/rsa"
	"crypto/x509"
	_ "embed"
	"encoding/pem"
	"fmt"
	"sync"
	"sync/atomic"
)

// pemKeys is the pool: PKCS #8 RSA-2048 private keys, one PEM block each.
// They were made with rsa.GenerateKey(rand.Reader, 2048) and are public,
// so they must never protect anything real.
//
//go:embed testdata/keys.pem
var pemKeys []byte

var (
	parseOnce sync.Once
	pool      []*rsa.PrivateKey
	next      atomic.Uint64
)

// load parses the pool once; a bad pool is a broken checkout, and every
// test using it should fail loudly rather than fall back to generating.
func load() []*rsa.PrivateKey {
	parseOnce.Do(func() {
		rest := pemKeys
		for {
			var block *pem.Block
			block, rest = pem.Decode(rest)
			if block == nil {
				break
			}
			k, err := x509.ParsePKCS8PrivateKey(block.Bytes)
			if err != nil {
				panic(fmt.Sprintf("testkeys: key %d: %v", len(pool), err))
			}
			rk, ok := k.(*rsa.PrivateKey)
			if !ok || rk.N.BitLen() != 2048 {
				panic(fmt.Sprintf("testkeys: key %d is not RSA-2048", len(pool)))
			}
			pool = append(pool, rk)
		}
		if len(pool) == 0 {
			panic("testkeys: testdata/keys.pem holds no keys")
		}
	})
	return pool
}

// Size is how many distinct keys the pool holds: Next repeats a key only
// after handing out Size others, so a test needing more distinct keys
// than that in one process must generate its own.
func Size() int { return len(load()) }

// Next returns the pool's next key, round-robin from a process-wide
// counter, so consecutive calls (from any goroutine) get distinct keys.
// The key is shared: callers must not modify it.
func Next() *rsa.PrivateKey {
	p := load()
	return p[(next.Add(1)-1)%uint64(len(p))]
}

// Source is Next in the shape of a key source (project.KeySource,
// app.Options.RSAKeys, sso.Deps.RSAKeys); it never fails.
func Source() (*rsa.PrivateKey, error) { return Next(), nil }

// Holds reports whether pub is the public half of one of the pool's keys:
// how a test proves a key the server made came from the pool.
func Holds(pub *rsa.PublicKey) bool {
	for _, k := range load() {
		if k.PublicKey.Equal(pub) {
			return true
		}
	}
	return false
}
