package trustedauth

import (
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rsa"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/go-jose/go-jose/v4"

	"github.com/latchkey/latchkey/internal/apierr"
	"github.com/latchkey/latchkey/internal/clock"
)

// How a profile's JWKS is cached. Keys are kept for keysTTL; a token
// signed with a key id the cache does not know triggers a refetch (the
// issuer rotated its keys). Any fetch after the first attempt, failed or
// not, happens at most once per refetchGap, so a stream of tokens with
// made-up key ids cannot make this server hammer the issuer, and while the
// issuer is down (or its URL hangs) logins answer at once: with the keys
// held, or, when none were ever fetched, keys_unavailable, which the
// attempt limit does not count. A fetch gives up after fetchTimeout.
const (
	keysTTL      = time.Hour
	refetchGap   = 30 * time.Second
	fetchTimeout = 5 * time.Second
	maxJWKSBytes = 1 << 20
)

// keyCache holds each profile's fetched JWKS.
type keyCache struct {
	http  *http.Client
	clock clock.Clock
	mu    sync.Mutex
	sets  map[string]*keySet // by profile id
}

// keySet is one profile's keys. Its lock guards the fields only and is
// never held across a fetch: logins that want keys while a fetch runs
// all wait for that one fetch (inflight), each only as long as its own
// request lasts.
type keySet struct {
	mu       sync.Mutex
	url      string
	keys     []jose.JSONWebKey
	fetched  time.Time  // last successful fetch
	tried    time.Time  // when the last attempt started or, once over, ended
	failure  error      // why the last attempt failed; nil after a success
	inflight *fetchCall // the fetch running now, if any
}

// fetchCall is one fetch shared by every login waiting for it.
type fetchCall struct {
	done chan struct{} // closed once err is set and the set updated
	err  error
}

func (c *keyCache) set(profileID, url string) *keySet {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.sets == nil {
		c.sets = map[string]*keySet{}
	}
	ks := c.sets[profileID]
	if ks == nil || ks.url != url {
		ks = &keySet{url: url}
		c.sets[profileID] = ks
	}
	return ks
}

func (c *keyCache) forget(profileID string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.sets, profileID)
}

// keys returns the profile's keys that may have signed a token with key
// id kid (see matching), and whether they were fetched for this call (or
// by the fetch it waited for) rather than taken from the cache. refresh
// asks for a fetch even though the cache holds a key for kid (subject to
// the gap like any other).
func (c *keyCache) keys(ctx context.Context, p *Profile, kid string, refresh bool) ([]jose.JSONWebKey, bool, error) {
	ks := c.set(p.ProfileID, p.JWKSURL)
	ks.mu.Lock()
	now := c.clock.Now()
	held := !ks.fetched.IsZero()
	want := refresh || !held || now.Sub(ks.fetched) >= keysTTL || !hasKey(ks.keys, kid)
	call := ks.inflight
	if want && call == nil && (ks.tried.IsZero() || now.Sub(ks.tried) >= refetchGap) {
		call = c.start(ctx, ks)
	}
	if !want || call == nil {
		// Within the gap: what the last attempt left is the answer.
		keys, failure := ks.keys, ks.failure
		ks.mu.Unlock()
		if !held {
			return nil, false, unavailable(failure)
		}
		return matching(keys, kid), false, nil
	}
	ks.mu.Unlock()
	select {
	case <-call.done:
	case <-ctx.Done():
		// The caller left (or its deadline passed); the fetch goes on
		// for the others and for the cache.
		return nil, false, unavailable(fmt.Errorf("trustedauth: waiting for jwks: %w", ctx.Err()))
	}
	ks.mu.Lock()
	keys := ks.keys
	ks.mu.Unlock()
	if call.err != nil {
		if len(keys) == 0 {
			return nil, false, unavailable(call.err)
		}
		// A failed refresh keeps the keys last fetched: the issuer being
		// unreachable should not stop logins with known keys.
		return matching(keys, kid), false, nil
	}
	return matching(keys, kid), true, nil
}

// start begins a fetch of ks's keys for every login that wants them;
// ks.mu is held.
func (c *keyCache) start(ctx context.Context, ks *keySet) *fetchCall {
	call := &fetchCall{done: make(chan struct{})}
	ks.inflight, ks.tried = call, c.clock.Now()
	// The fetch is everyone's, so the login that happened to start it
	// must not cancel it by leaving; fetch bounds it with fetchTimeout.
	fctx := context.WithoutCancel(ctx)
	go func() {
		keys, err := c.fetch(fctx, ks.url)
		ks.mu.Lock()
		defer ks.mu.Unlock()
		now := c.clock.Now()
		if err == nil {
			ks.keys, ks.fetched = keys, now
		}
		// The gap runs from the end of the attempt: a URL that hangs
		// for fetchTimeout is not asked again right after.
		ks.tried, ks.failure, ks.inflight = now, err, nil
		call.err = err
		close(call.done)
	}()
	return call
}

// unavailable is the answer when no key can be had; cause is logged.
func unavailable(cause error) error {
	if cause == nil {
		cause = errors.New("trustedauth: no jwks fetched")
	}
	return apierr.Wrap(apierr.TrustedAuthTokenKeysUnavailable, cause)
}

// hasKey reports whether keys hold one for a token with key id kid: any
// key when the token names none.
func hasKey(keys []jose.JSONWebKey, kid string) bool {
	return kid == "" || slices.ContainsFunc(keys, func(k jose.JSONWebKey) bool { return k.KeyID == kid })
}

// matching returns the keys that may have signed a token with key id kid:
// those with that id; failing any, those with none (a JWKS need not name
// its keys, RFC 7517 section 4.5, and the token's kid is only a hint);
// every key when the token names none.
func matching(keys []jose.JSONWebKey, kid string) []jose.JSONWebKey {
	if kid == "" {
		return keys
	}
	var named, unnamed []jose.JSONWebKey
	for _, k := range keys {
		switch k.KeyID {
		case kid:
			named = append(named, k)
		case "":
			unnamed = append(unnamed, k)
		}
	}
	if len(named) > 0 {
		return named
	}
	return unnamed
}

// named reports whether keys are the ones the token's kid names (not
// every key, or the unnamed ones, tried for want of a match).
func named(keys []jose.JSONWebKey, kid string) bool {
	return kid != "" && len(keys) > 0 && keys[0].KeyID == kid
}

// fetch reads a JWKS document, keeping the public signing keys.
func (c *keyCache) fetch(ctx context.Context, url string) ([]jose.JSONWebKey, error) {
	ctx, cancel := context.WithTimeout(ctx, fetchTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, fmt.Errorf("trustedauth: jwks request: %w", err)
	}
	req.Header.Set("Accept", "application/json")
	resp, err := c.http.Do(req)
	if err != nil {
		return nil, fmt.Errorf("trustedauth: fetch jwks: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("trustedauth: fetch jwks: status %d", resp.StatusCode)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxJWKSBytes))
	if err != nil {
		return nil, fmt.Errorf("trustedauth: read jwks: %w", err)
	}
	// Each key is decoded on its own: go-jose fails a whole set on one
	// key it cannot read (an X25519 encryption key, another curve, a key
	// type it does not know), and RFC 7517 section 5 says to ignore such
	// keys, so one of them must not stop the issuer's other keys.
	var set struct {
		Keys []json.RawMessage `json:"keys"`
	}
	if err := json.Unmarshal(body, &set); err != nil {
		return nil, fmt.Errorf("trustedauth: decode jwks: %w", err)
	}
	var keys []jose.JSONWebKey
	weak, unreadable := 0, 0
	for _, rawKey := range set.Keys {
		var k jose.JSONWebKey
		// go-jose's JSONWebKey does not carry key_ops, which restricts a
		// key as use does (RFC 7517 section 4.3): read beside it.
		var ops struct {
			KeyOps []string `json:"key_ops"`
		}
		if k.UnmarshalJSON(rawKey) != nil || json.Unmarshal(rawKey, &ops) != nil {
			unreadable++
			continue
		}
		if (k.Use != "" && k.Use != "sig") || !k.IsPublic() || !k.Valid() {
			continue
		}
		// A key whose operations are listed verifies only if "verify" is
		// one of them: a key the issuer published to encrypt to it has
		// not vouched for any token.
		if ops.KeyOps != nil && !slices.Contains(ops.KeyOps, "verify") {
			continue
		}
		// A weak key is dropped, not the whole set: the issuer's other
		// keys still verify its tokens.
		if checkKeyStrength(k.Key) != nil {
			weak++
			continue
		}
		keys = append(keys, k)
	}
	if len(keys) == 0 {
		return nil, fmt.Errorf("trustedauth: jwks has no usable public signing key (%d too weak, %d unreadable)", weak, unreadable)
	}
	return keys, nil
}

// maxRedirects is how many redirects a fetch follows, as net/http does
// by default.
const maxRedirects = 10

// checkedClient is a copy of c (which may be shared) whose redirects must
// each pass checkFetchURL too, and never go from https to http: otherwise
// an https URL could hand the fetch to plain http, and Go re-sends an
// Authorization header on a same-host redirect. Plain http to loopback is
// for a URL the operator names (tests, local mocks); the issuer's https
// server redirecting there would make this server request its own
// loopback services (as outbound's redirect rule, which SSO fetches use).
func checkedClient(c *http.Client, field string) *http.Client {
	cc := *c
	next := c.CheckRedirect
	cc.CheckRedirect = func(req *http.Request, via []*http.Request) error {
		if prev := via[len(via)-1].URL; prev.Scheme == "https" && req.URL.Scheme != "https" {
			return fmt.Errorf("trustedauth: redirect from https to %s refused", req.URL.Redacted())
		}
		if err := checkFetchURL(field, req.URL.String()); err != nil {
			// %v, not %w: the caller's own error type is the answer, not
			// the checker's invalid_request.
			return fmt.Errorf("trustedauth: redirect to %s refused: %v", req.URL.Redacted(), err)
		}
		if next != nil {
			return next(req, via)
		}
		if len(via) >= maxRedirects {
			return fmt.Errorf("trustedauth: stopped after %d redirects", maxRedirects)
		}
		return nil
	}
	return &cc
}

// parsePublicKey reads an RSA, ECDSA or Ed25519 public key from PEM: a
// PUBLIC KEY (PKIX), an RSA PUBLIC KEY (PKCS#1) or a CERTIFICATE.
func parsePublicKey(text string) (crypto.PublicKey, error) {
	block, _ := pem.Decode([]byte(strings.TrimSpace(text)))
	if block == nil {
		return nil, errors.New("not PEM")
	}
	var key any
	var err error
	switch block.Type {
	case "PUBLIC KEY":
		key, err = x509.ParsePKIXPublicKey(block.Bytes)
	case "RSA PUBLIC KEY":
		key, err = x509.ParsePKCS1PublicKey(block.Bytes)
	case "CERTIFICATE":
		var cert *x509.Certificate
		if cert, err = x509.ParseCertificate(block.Bytes); err == nil {
			key = cert.PublicKey
		}
	default:
		return nil, fmt.Errorf("PEM block %q is not a public key or certificate", block.Type)
	}
	if err != nil {
		return nil, err
	}
	if err := checkKeyStrength(key); err != nil {
		return nil, err
	}
	return key, nil
}

// minRSABits is the smallest RSA modulus a profile key may have (NIST SP
// 800-131A): a shorter one can be factored, and whoever does signs tokens
// for any member.
const minRSABits = 2048

// checkKeyStrength is the one rule for a profile's keys, whether read from
// PEM when the profile is created or fetched from its JWKS on every
// refresh: RSA of at least minRSABits, ECDSA on P-256, P-384 or P-521
// (the curves of ES256, ES384 and ES512: go-jose verifies no other, so a
// P-224 key would make a profile that refuses every token), or Ed25519.
func checkKeyStrength(key any) error {
	switch k := key.(type) {
	case *rsa.PublicKey:
		if k.N.BitLen() < minRSABits {
			return refusedKey(fmt.Sprintf("RSA keys must have at least %d bits", minRSABits))
		}
		return nil
	case *ecdsa.PublicKey:
		switch k.Curve {
		case elliptic.P256(), elliptic.P384(), elliptic.P521():
			return nil
		}
		return refusedKey("ECDSA keys must be on P-256, P-384 or P-521, not " + k.Curve.Params().Name)
	case ed25519.PublicKey:
		return nil
	}
	return refusedKey(fmt.Sprintf("unsupported key type %T", key))
}

// refusedKey is why checkKeyStrength refuses a key. A profile stored
// before a rule was added may hold such a key: it verifies nothing, but
// the profile's other keys still do (checkSignature).
type refusedKey string

func (r refusedKey) Error() string { return string(r) }
