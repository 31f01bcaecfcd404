package session_test

import (
	"crypto/rsa"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"math/big"
	"net/http"
	"slices"
	"testing"

	"github.com/latchkey/latchkey/internal/apptest"
)

// The JWKS carries every field the Node client's JWK declares as required,
// with the values Stytch's key set has: key_ops ["verify"], x5c (a
// certificate of the key, standard base64 DER) and x5tS256 (the base64url
// SHA-256 of that certificate). The certificate holds the published key
// and is signed by it, and two servers on one database (separate caches)
// publish the same one.
func TestJWKSCarriesTheDeclaredKeyFields(t *testing.T) {
	apptest.EachPair(t, func(t *testing.T, e, e2 *apptest.Env) {
		path := "/v1/b2b/sessions/jwks/" + e.Project.Project.ID
		type jwk struct {
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
		read := func(e *apptest.Env) []jwk {
			r := e.Do(http.MethodGet, path, nil, nil, "", "")
			var set struct{ Keys []jwk }
			if err := json.Unmarshal(r.Raw, &set); err != nil || len(set.Keys) == 0 {
				t.Fatalf("jwks: %s (%v)", r.Raw, err)
			}
			return set.Keys
		}
		k := read(e)[0]
		if k.Kty != "RSA" || k.Use != "sig" || k.Alg != "RS256" || !slices.Equal(k.KeyOps, []string{"verify"}) {
			t.Fatalf("key: %+v", k)
		}
		if len(k.X5c) != 1 {
			t.Fatalf("x5c = %v, want the key's certificate", k.X5c)
		}
		der, err := base64.StdEncoding.DecodeString(k.X5c[0])
		if err != nil {
			t.Fatalf("x5c is not standard base64: %v", err)
		}
		cert, err := x509.ParseCertificate(der)
		if err != nil {
			t.Fatalf("x5c: %v", err)
		}
		n, _ := base64.RawURLEncoding.DecodeString(k.N)
		pub, ok := cert.PublicKey.(*rsa.PublicKey)
		if !ok || pub.N.Cmp(new(big.Int).SetBytes(n)) != 0 {
			t.Fatal("the certificate holds another key than the JWK's")
		}
		if err := cert.CheckSignature(cert.SignatureAlgorithm, cert.RawTBSCertificate, cert.Signature); err != nil {
			t.Fatalf("the certificate is not signed by its own key: %v", err)
		}
		sum := sha256.Sum256(der)
		if k.X5tS256 != base64.RawURLEncoding.EncodeToString(sum[:]) {
			t.Fatalf("x5tS256 = %q, want the certificate's SHA-256", k.X5tS256)
		}
		if other := read(e2)[0]; other.Kid != k.Kid || other.X5c[0] != k.X5c[0] || other.X5tS256 != k.X5tS256 {
			t.Fatal("another server publishes another certificate for the key")
		}
	})
}
