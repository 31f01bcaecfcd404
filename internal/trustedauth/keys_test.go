package trustedauth_test

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"strconv"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"

	"github.com/latchkey/latchkey/internal/apptest"
)

// With no keys held (a restart, a new profile) and the key URL failing,
// one attempt per refetch gap is made: the logins in between are answered
// keys_unavailable at once, without asking the issuer again. They are not
// counted by the attempt limit, so nothing else would stop them from making
// this server fetch once per login.
func TestAttestKeysUnavailableAnswersAtOnceWithinTheGap(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		sc := newScene(t, e)
		sc.is.down.Store(true)
		for i := range 5 {
			apptest.Want(t, sc.attest(sc.is.token(e.Clock.Now(), "ana@acme.test", "u"+strconv.Itoa(i), nil)),
				502, "trusted_auth_token_keys_unavailable")
			e.Clock.Advance(time.Second)
		}
		if n := sc.is.hits.Load(); n != 1 {
			t.Fatalf("JWKS fetched %d times for 5 logins within the gap, want 1", n)
		}
		e.Clock.Advance(30 * time.Second)
		apptest.Want(t, sc.attest(sc.is.token(e.Clock.Now(), "ana@acme.test", "u5", nil)), 502, "trusted_auth_token_keys_unavailable")
		if n := sc.is.hits.Load(); n != 2 {
			t.Fatalf("JWKS fetched %d times after the gap, want 2", n)
		}
		sc.is.down.Store(false)
		e.Clock.Advance(30 * time.Second)
		apptest.Want(t, sc.attest(sc.is.token(e.Clock.Now(), "ana@acme.test", "u6", nil)), 200, "")
	})
}

// Logins that arrive while the key URL hangs wait for the one fetch in
// flight instead of each fetching in turn behind the others (three logins
// were answered after 5, 10 and 15 s, each waiting out the fetch timeout).
func TestAttestWhileTheKeyURLHangsSharesOneFetch(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		sc := newScene(t, e)
		sc.is.down.Store(true)
		release := sc.is.holdFetches()
		go func() {
			sc.is.waitForHits(1)
			release()
		}()
		now := e.Clock.Now()
		rs := apptest.Together(3, func(i int) apptest.Resp {
			return sc.attest(sc.is.token(now, "ana@acme.test", "h"+strconv.Itoa(i), nil))
		})
		for _, r := range rs {
			apptest.Want(t, r, 502, "trusted_auth_token_keys_unavailable")
		}
		if n := sc.is.hits.Load(); n != 1 {
			t.Fatalf("JWKS fetched %d times for 3 concurrent logins, want 1", n)
		}
	})
}

// A token without a kid is tried with every held key. When none verifies
// it, the issuer may have rotated: the keys are fetched again (at most
// once per refetch gap) and tried once more, instead of refusing the new
// key's tokens until the cache expires an hour later.
func TestAttestTokenWithoutKidAfterRotation(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		sc := newScene(t, e)
		is := sc.is
		call := func(key crypto.Signer, jti string) apptest.Resp {
			return sc.attest(sign(t, jose.ES256, key, "", claimsFor(e.Clock.Now(), "ana@acme.test", jti)))
		}
		apptest.Want(t, call(is.key("k1"), "n1"), 200, "")
		k2 := is.addKey("k2")
		is.removeKey("k1")
		// Within the gap after the first fetch: refused, not refetched.
		e.Clock.Advance(10 * time.Second)
		apptest.Want(t, call(k2, "n2"), 401, "invalid_trusted_auth_token")
		if n := is.hits.Load(); n != 1 {
			t.Fatalf("JWKS fetched %d times within the gap, want 1", n)
		}
		e.Clock.Advance(30 * time.Second)
		apptest.Want(t, call(k2, "n3"), 200, "")
		if n := is.hits.Load(); n != 2 {
			t.Fatalf("JWKS fetched %d times, want 2", n)
		}
		// A stranger's token without a kid right after: refused, and no
		// fetch (the keys were just fetched).
		stranger, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		apptest.Want(t, call(stranger, "n4"), 401, "invalid_trusted_auth_token")
		if n := is.hits.Load(); n != 2 {
			t.Fatalf("JWKS fetched %d times after a stranger's token, want 2", n)
		}
	})
}

// An issuer whose JWKS names no key ids still signs tokens that carry
// one: the kid is a hint, and the keys without an id are tried.
func TestAttestTokenWithKidAgainstUnnamedKeys(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		sc := newScene(t, e)
		sc.is.anon.Store(true)
		apptest.Want(t, sc.attest(sc.is.token(e.Clock.Now(), "ana@acme.test", "a1", nil)), 200, "")
		stranger, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		apptest.Want(t, sc.attest(sign(t, jose.ES256, stranger, "k1", claimsFor(e.Clock.Now(), "ana@acme.test", "a2"))),
			401, "invalid_trusted_auth_token")
	})
}

// Keys fetched from a JWKS are held to the minimum PEM keys meet: an RSA
// key under 2048 bits is dropped, so its tokens are refused while the
// issuer's other keys still verify theirs, and a JWKS with only weak keys
// has no keys at all.
func TestAttestJWKSDropsWeakRSAKeys(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		sc := newScene(t, e)
		weak := sc.is.addRSAKey("weak", 1024)
		strong := sc.is.addRSAKey("strong", 2048)
		now := e.Clock.Now()
		apptest.Want(t, sc.attest(sign(t, jose.RS256, weak, "weak", claimsFor(now, "ana@acme.test", "w1"))),
			401, "invalid_trusted_auth_token")
		apptest.Want(t, sc.attest(sign(t, jose.RS256, strong, "strong", claimsFor(now, "ana@acme.test", "w2"))), 200, "")
		apptest.Want(t, sc.attest(sc.is.token(now, "ana@acme.test", "w3", nil)), 200, "")

		only := newIssuer(t)
		only.removeKey("k1")
		weakOnly := only.addRSAKey("weak", 1024)
		prof := jwksProfile(t, e, only, nil)
		r := attest(e, map[string]any{"profile_id": prof.ProfileID, "organization_id": sc.org,
			"token": sign(t, jose.RS256, weakOnly, "weak", claimsFor(now, "ana@acme.test", "w4"))})
		apptest.Want(t, r, 502, "trusted_auth_token_keys_unavailable")
	})
}

// A JWK that declares its algorithm verifies only tokens of that one: an
// RSA key the issuer published for RS256 does not verify a PS256 or RS512
// token signed with the same key (go-jose alone would let it).
func TestAttestJWKVerifiesOnlyItsDeclaredAlgorithm(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		sc := newScene(t, e)
		k := sc.is.addRSAKey("rsa", 2048) // published with alg RS256
		now := e.Clock.Now()
		apptest.Want(t, sc.attest(sign(t, jose.RS256, k, "rsa", claimsFor(now, "ana@acme.test", "d1"))), 200, "")
		for i, alg := range []jose.SignatureAlgorithm{jose.PS256, jose.RS512, jose.PS512} {
			apptest.Want(t, sc.attest(sign(t, alg, k, "rsa", claimsFor(now, "ana@acme.test", "d"+strconv.Itoa(i+2)))),
				401, "invalid_trusted_auth_token")
		}
	})
}

// A JWKS may hold keys this server cannot use: an X25519 key for
// encryption, a curve or key type go-jose does not know. RFC 7517
// section 5 says to ignore them, and the issuer's other keys still verify
// its tokens (as with a weak RSA key), rather than the whole set failing
// to decode and every login answering keys_unavailable.
func TestAttestJWKSIgnoresKeysItCannotRead(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		sc := newScene(t, e)
		sc.is.mu.Lock()
		sc.is.raw = []map[string]any{
			{"kty": "OKP", "crv": "X25519", "use": "enc", "kid": "x", "x": "hSDwCYkwp1R0i33ctD73Wg2_Og0mOBr066SpjqqbTmo"},
			{"kty": "EC", "crv": "secp256k1", "kid": "k256", "x": "8pVRJpN1E4VQsdtN4IXNeStkovDtHJwKWv8tbXwfuTQ",
				"y": "T1cgsLm3kH6xoNa4S8q7tfE9yDDK3xqHC9ohpWwbVc0"},
			{"kty": "AKP", "kid": "pq", "alg": "ML-DSA-44", "pub": "AAAA"},
		}
		sc.is.mu.Unlock()
		now := e.Clock.Now()
		apptest.Want(t, sc.attest(sc.is.token(now, "ana@acme.test", "r1", nil)), 200, "")
	})
}
