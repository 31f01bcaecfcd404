// Package signslot keeps a core free of RSA signing. A 2048-bit RS256
// signature costs 0.3-0.8 ms of one core (rsasign's fast path, or
// crypto/rsa), more than the rest of a login. When as many signatures run as there are cores, the request
// holding SQLite's one writer waits for a core like everything else, and
// every write queued behind it waits longer: measured on two cores, email
// logins went about 10% faster, with a send p99 a quarter lower, with one
// signature at a time than with two. So at most GOMAXPROCS-1
// signatures run at once (at least one), and the other core is always
// there for the writer, the network and the checks that need no key.
//
// The bound is process-wide, like the hashing slots of pwhash, because
// every signer shares the same cores. It is for signatures made outside a
// write transaction (session JWTs are signed after their commit): a
// writer waiting for a slot would be the very wait it exists to prevent.
package signslot

import (
	"encoding/json"
	"fmt"
	"runtime"

	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/cryptosigner"

	"github.com/latchkey/latchkey/internal/project"
)

var slots = make(chan struct{}, size(runtime.GOMAXPROCS(0)))

// size is how many signatures may run at once on procs cores.
func size(procs int) int { return max(procs-1, 1) }

// RS256 returns the JWT signer of k: typ JWT, k's kid, and k.Signer's
// signatures (rsasign's fast path) when it has one.
func RS256(k project.SigningKey) (jose.Signer, error) {
	var key any = k.Private
	if k.Signer != nil {
		key = cryptosigner.Opaque(k.Signer)
	}
	return jose.NewSigner(jose.SigningKey{Algorithm: jose.RS256, Key: key},
		(&jose.SignerOptions{}).WithType("JWT").WithHeader("kid", k.KID))
}

// Sign serializes claims as a JWT signed by signer, once a slot is free.
// A wait is at most a few signatures long, so it does not watch a context.
//
// The claims are encoded once, outside the slot. go-jose's JWT builder
// encodes them, decodes them into a map and encodes the map again (so it
// can merge several claim sets, which no caller here does): three passes
// for the same payload.
func Sign(signer jose.Signer, claims any) (string, error) {
	payload, err := json.Marshal(claims)
	if err != nil {
		return "", fmt.Errorf("signslot: claims: %w", err)
	}
	var out string
	err = do(func() error {
		obj, err := signer.Sign(payload)
		if err != nil {
			return err
		}
		out, err = obj.CompactSerialize()
		return err
	})
	return out, err
}

// do runs sign once a slot is free and returns its error.
func do(sign func() error) error {
	slots <- struct{}{}
	defer func() { <-slots }()
	return sign()
}
