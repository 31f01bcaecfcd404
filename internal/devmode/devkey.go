package devmode

import (
	"crypto/rand"
	"crypto/rsa"
	"encoding/json"
	"net/http"
	"sync"

	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"

	"github.com/latchkey/latchkey/internal/ids"
)

// devKey is a dev provider's RSA signing key, made on first use. Every
// server in dev mode (the demo, and every test server) mounts the providers,
// and an RSA-2048 key costs ~100 ms of CPU to make: made up front, the OAuth
// mock's key alone was half the CPU of some test packages, for a provider
// most of them never sign in with.
type devKey struct {
	kidPrefix string
	once      sync.Once
	key       *rsa.PrivateKey
	kid       string
}

func (k *devKey) get() (*rsa.PrivateKey, string) {
	k.once.Do(func() {
		key, err := rsa.GenerateKey(rand.Reader, 2048)
		if err != nil {
			panic(err) // crypto/rand does not fail on supported platforms
		}
		k.key, k.kid = key, k.kidPrefix+ids.Token()[:8]
	})
	return k.key, k.kid
}

// sign returns claims as an RS256 ID token signed by the key.
func (k *devKey) sign(claims map[string]any) (string, error) {
	key, kid := k.get()
	signer, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.RS256, Key: key},
		(&jose.SignerOptions{}).WithType("JWT").WithHeader("kid", kid))
	if err != nil {
		return "", err
	}
	return jwt.Signed(signer).Claims(claims).Serialize()
}

// serveJWKS answers with the key set holding the key's public half.
func (k *devKey) serveJWKS(w http.ResponseWriter) {
	key, kid := k.get()
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(jose.JSONWebKeySet{Keys: []jose.JSONWebKey{{Key: &key.PublicKey, KeyID: kid,
		Algorithm: string(jose.RS256), Use: "sig"}}})
}
