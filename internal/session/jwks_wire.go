package session

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"fmt"
	"math/big"
	"sync"
	"time"

	"github.com/latchkey/latchkey/internal/project"
)

// jwkWire is a signing key as Stytch's key set publishes it: every field
// the Node client's JWK declares (all required), so a verifier reading
// x5c or key_ops finds them. x5tS256 is Stytch's spelling (RFC 7517's is
// x5t#S256).
type jwkWire struct {
	Kty     string   `json:"kty"`
	Use     string   `json:"use"`
	KeyOps  []string `json:"key_ops"`
	Alg     string   `json:"alg"`
	Kid     string   `json:"kid"`
	X5c     []string `json:"x5c"`
	X5tS256 string   `json:"x5tS256"`
	N       string   `json:"n"`
	E       string   `json:"e"`
}

// certCache holds each key's certificate by kid: making one costs an RSA
// signature, and a key never changes under its kid. It is bounded by
// dropping everything past certCacheMax (retired keys' entries go then).
type certCache struct {
	mu    sync.Mutex
	byKID map[string]keyCert
}

const certCacheMax = 4096

type keyCert struct {
	b64  string // x5c's one entry: standard base64 DER
	s256 string // x5tS256: base64url SHA-256 of the DER
}

// publicJWK is k's entry in the key set.
func (cc *certCache) publicJWK(k project.SigningKey) (jwkWire, error) {
	c, err := cc.certOf(k)
	if err != nil {
		return jwkWire{}, err
	}
	pub := &k.Private.PublicKey
	return jwkWire{Kty: "RSA", Use: "sig", KeyOps: []string{"verify"}, Alg: "RS256", Kid: k.KID,
		X5c: []string{c.b64}, X5tS256: c.s256,
		N: base64.RawURLEncoding.EncodeToString(pub.N.Bytes()),
		E: base64.RawURLEncoding.EncodeToString(big.NewInt(int64(pub.E)).Bytes())}, nil
}

// KeySet is a project's signing keys as a JSON Web Key Set: every key
// published (a rotated one still pending among them), in Stytch's shape.
// The session JWKS and the OpenID provider's jwks_uri both serve it, so a
// verifier reading either sees the same keys, fields and certificates.
type KeySet struct {
	Keys []jwkWire `json:"keys"`
}

// KeySet returns projectID's key set, from the cache the session checks
// use (a key change reaches it within a second, through the change feed).
func (s *Service) KeySet(ctx context.Context, projectID string) (KeySet, error) {
	keys, err := s.keys.get(ctx, projectID)
	if err != nil {
		return KeySet{}, err
	}
	set := KeySet{Keys: make([]jwkWire, 0, len(keys))}
	for _, k := range keys {
		j, err := s.keys.certs.publicJWK(k)
		if err != nil {
			return KeySet{}, err
		}
		set.Keys = append(set.Keys, j)
	}
	return set, nil
}

// certOf is k's self-signed certificate. Every field is derived from the
// key (serial and subject from the kid, fixed validity, a PKCS #1 v1.5
// signature, which is deterministic), so every replica publishes the same
// certificate for a key and a verifier pinning its thumbprint sees no
// change across them. Nothing about a session's validity depends on it:
// JWTs verify with n and e, as Stytch's do.
func (cc *certCache) certOf(k project.SigningKey) (keyCert, error) {
	cc.mu.Lock()
	c, ok := cc.byKID[k.KID]
	cc.mu.Unlock()
	if ok {
		return c, nil
	}
	sum := sha256.Sum256([]byte(k.KID))
	tmpl := &x509.Certificate{
		SerialNumber:          new(big.Int).SetBytes(sum[:16]),
		Subject:               pkix.Name{CommonName: k.KID},
		NotBefore:             time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC),
		NotAfter:              time.Date(9999, 12, 31, 23, 59, 59, 0, time.UTC),
		KeyUsage:              x509.KeyUsageDigitalSignature,
		BasicConstraintsValid: true,
		SignatureAlgorithm:    x509.SHA256WithRSA,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &k.Private.PublicKey, k.Private)
	if err != nil {
		return keyCert{}, fmt.Errorf("session: certificate of key %s: %w", k.KID, err)
	}
	s256 := sha256.Sum256(der)
	c = keyCert{b64: base64.StdEncoding.EncodeToString(der), s256: base64.RawURLEncoding.EncodeToString(s256[:])}
	cc.mu.Lock()
	if cc.byKID == nil || len(cc.byKID) >= certCacheMax {
		cc.byKID = map[string]keyCert{}
	}
	cc.byKID[k.KID] = c
	cc.mu.Unlock()
	return c, nil
}
