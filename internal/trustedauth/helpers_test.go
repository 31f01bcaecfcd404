package trustedauth_test

import (
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"encoding/base64"
	"encoding/json"
	"math/big"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"

	"github.com/latchkey/latchkey/internal/apptest"
	"github.com/latchkey/latchkey/internal/apptest/testkeys"
	"github.com/latchkey/latchkey/internal/trustedauth"
)

// issuer is an outside identity provider on loopback: its signing keys,
// published as a JWKS the way such providers serve them.
type issuer struct {
	t    *testing.T
	srv  *httptest.Server
	mu   sync.Mutex
	keys map[string]crypto.Signer // by kid, published
	uses map[string]string        // by kid, the published "use" when not "sig"
	ops  map[string][]string      // by kid, a published "key_ops" (then no "use")
	raw  []map[string]any         // further JWKs published as they are
	hits atomic.Int32             // JWKS fetches
	down atomic.Bool              // answer 503
	anon atomic.Bool              // publish the keys without their key ids
	gate chan struct{}            // when set, fetches wait until it is closed (holdFetches)
}

const (
	issuerName = "https://idp.partner.test"
	audience   = "latchkey-customer-app"
)

func newIssuer(t *testing.T) *issuer {
	t.Helper()
	is := &issuer{t: t, keys: map[string]crypto.Signer{}, uses: map[string]string{}, ops: map[string][]string{}}
	is.addKey("k1")
	is.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		is.hits.Add(1)
		is.mu.Lock()
		gate := is.gate
		is.mu.Unlock()
		if gate != nil {
			select {
			case <-gate:
			case <-r.Context().Done():
				return
			}
		}
		if is.down.Load() {
			http.Error(w, "unavailable", http.StatusServiceUnavailable)
			return
		}
		is.mu.Lock()
		// Each key as its own JSON object, so a key_ops (which go-jose's
		// JSONWebKey does not carry) can be added.
		var set struct {
			Keys []map[string]any `json:"keys"`
		}
		for kid, k := range is.keys {
			use, ops := is.uses[kid], is.ops[kid]
			if use == "" && ops == nil {
				use = "sig"
			}
			published := kid
			if is.anon.Load() {
				published = ""
			}
			alg := jose.ES256
			if _, ok := k.(*rsa.PrivateKey); ok {
				alg = jose.RS256
			}
			b, err := json.Marshal(jose.JSONWebKey{Key: k.Public(), KeyID: published, Use: use, Algorithm: string(alg)})
			var obj map[string]any
			if err == nil {
				err = json.Unmarshal(b, &obj)
			}
			if err != nil {
				is.mu.Unlock()
				http.Error(w, err.Error(), http.StatusInternalServerError)
				return
			}
			if ops != nil {
				obj["key_ops"] = ops
			}
			set.Keys = append(set.Keys, obj)
		}
		set.Keys = append(set.Keys, is.raw...)
		is.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(set)
	}))
	t.Cleanup(is.srv.Close)
	return is
}

// addKey creates and publishes a new P-256 key.
func (is *issuer) addKey(kid string) crypto.Signer {
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		is.t.Fatal(err)
	}
	is.publish(kid, k)
	return k
}

// addRSAKey creates and publishes a new RSA key of bits bits.
func (is *issuer) addRSAKey(kid string, bits int) *rsa.PrivateKey {
	k := testkeys.Next() // the pool's keys are RSA-2048
	if bits != 2048 {
		var err error
		if k, err = rsa.GenerateKey(rand.Reader, bits); err != nil {
			is.t.Fatal(err)
		}
	}
	is.publish(kid, k)
	return k
}

// publish adds k to the issuer's JWKS under kid.
func (is *issuer) publish(kid string, k crypto.Signer) {
	is.mu.Lock()
	defer is.mu.Unlock()
	is.keys[kid] = k
}

// holdFetches makes JWKS fetches hang (as a key URL that accepts the
// connection and never answers) until release is called.
func (is *issuer) holdFetches() (release func()) {
	gate := make(chan struct{})
	is.mu.Lock()
	is.gate = gate
	is.mu.Unlock()
	var once sync.Once
	release = func() { once.Do(func() { close(gate) }) }
	is.t.Cleanup(release) // before the server's Close, which waits for its requests
	return release
}

// waitForHits waits until the JWKS was asked n times.
func (is *issuer) waitForHits(n int32) {
	is.t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for is.hits.Load() < n {
		if time.Now().After(deadline) {
			is.t.Fatalf("the JWKS was asked %d times, want %d", is.hits.Load(), n)
		}
		time.Sleep(time.Millisecond)
	}
}

// removeKey stops publishing kid (the issuer withdrew the key).
func (is *issuer) removeKey(kid string) {
	is.mu.Lock()
	defer is.mu.Unlock()
	delete(is.keys, kid)
}

func (is *issuer) key(kid string) crypto.Signer {
	is.mu.Lock()
	defer is.mu.Unlock()
	return is.keys[kid]
}

// sign makes a JWT with claims signed by key under kid.
func sign(t *testing.T, alg jose.SignatureAlgorithm, key any, kid string, claims map[string]any) string {
	t.Helper()
	opts := (&jose.SignerOptions{}).WithType("JWT")
	var sk jose.SigningKey
	if kid != "" {
		sk = jose.SigningKey{Algorithm: alg, Key: jose.JSONWebKey{Key: key, KeyID: kid}}
	} else {
		sk = jose.SigningKey{Algorithm: alg, Key: key}
	}
	signer, err := jose.NewSigner(sk, opts)
	if err != nil {
		t.Fatal(err)
	}
	tok, err := jwt.Signed(signer).Claims(claims).Serialize()
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

// claimsFor are a valid token's claims at now for email.
func claimsFor(now time.Time, email, jti string) map[string]any {
	return map[string]any{"iss": issuerName, "aud": audience, "sub": "user-" + email, "email": email, "jti": jti,
		"iat": now.Unix(), "nbf": now.Unix(), "exp": now.Add(5 * time.Minute).Unix()}
}

// token is a valid token signed with the issuer's k1.
func (is *issuer) token(now time.Time, email, jti string, extra map[string]any) string {
	c := claimsFor(now, email, jti)
	for k, v := range extra {
		if v == nil {
			delete(c, k)
		} else {
			c[k] = v
		}
	}
	return sign(is.t, jose.ES256, is.key("k1"), "k1", c)
}

// ecdsaTwin is tok with its ECDSA signature's twin (r, n−s), which
// verifies as well: the same signed token in another encoding.
func ecdsaTwin(t *testing.T, tok string) string {
	t.Helper()
	parts := strings.Split(tok, ".")
	sig, err := base64.RawURLEncoding.DecodeString(parts[2])
	if err != nil || len(sig) != 64 {
		t.Fatalf("not an ES256 signature: %q", parts[2])
	}
	s := new(big.Int).SetBytes(sig[32:])
	s.Sub(elliptic.P256().Params().N, s)
	s.FillBytes(sig[32:])
	return parts[0] + "." + parts[1] + "." + base64.RawURLEncoding.EncodeToString(sig)
}

// jwksProfile registers a profile for the issuer on the env's project.
func jwksProfile(t *testing.T, e *apptest.Env, is *issuer, tweak func(*trustedauth.NewProfile)) *trustedauth.Profile {
	t.Helper()
	n := trustedauth.NewProfile{ProjectID: e.Project.Project.ID, Env: e.Project.Project.Env, Issuer: issuerName,
		Audience: audience, JWKSURL: is.srv.URL + "/.well-known/jwks.json"}
	if tweak != nil {
		tweak(&n)
	}
	p, err := e.App.TrustedAuth.CreateProfile(context.Background(), n)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// scene is the usual setting of an attestation test: an issuer, its
// profile (default mapping, no JIT) on the env's project, and the
// organization acme (no email JIT) with the member ana@acme.test.
type scene struct {
	e    *apptest.Env
	is   *issuer
	prof *trustedauth.Profile
	org  string
}

func newScene(t *testing.T, e *apptest.Env) *scene {
	t.Helper()
	is := newIssuer(t)
	sc := &scene{e: e, is: is, prof: jwksProfile(t, e, is, nil), org: e.CreateOrg("acme", "NOT_ALLOWED", nil)}
	e.CreateMember(sc.org, "ana@acme.test")
	return sc
}

// body attests tok for the scene's profile and organization.
func (sc *scene) body(tok string) map[string]any {
	return map[string]any{"profile_id": sc.prof.ProfileID, "token": tok, "organization_id": sc.org}
}

// attest sends tok on the backend face.
func (sc *scene) attest(tok string) apptest.Resp { return attest(sc.e, sc.body(tok)) }

// attest calls the backend face.
func attest(e *apptest.Env, body map[string]any) apptest.Resp {
	return e.Backend(http.MethodPost, "/v1/b2b/sessions/attest", body)
}

// factors returns a session answer's authentication factors.
func factors(t *testing.T, body map[string]any) []map[string]any {
	t.Helper()
	ms, ok := body["member_session"].(map[string]any)
	if !ok {
		t.Fatalf("no member_session in %v", body)
	}
	var out []map[string]any
	for _, f := range ms["authentication_factors"].([]any) {
		out = append(out, f.(map[string]any))
	}
	return out
}
