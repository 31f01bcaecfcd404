package devmode

import (
	"encoding/json"
	"net/http/httptest"
	"testing"

	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
)

// Mounting the providers makes no key (every dev-mode server mounts them);
// the first use makes one, and every later use, the key set included, sees
// the same key.
func TestDevKeyIsMadeOnFirstUseOnly(t *testing.T) {
	m := NewOAuthMock(func() string { return "http://127.0.0.1:1" })
	o := NewOIDCIdP(func() string { return "http://127.0.0.1:1" })
	if m.key.key != nil || o.key.key != nil {
		t.Fatal("a dev provider made its signing key before anyone used it")
	}
	token, err := o.key.sign(map[string]any{"sub": "s"})
	if err != nil {
		t.Fatal(err)
	}
	rec := httptest.NewRecorder()
	o.key.serveJWKS(rec)
	var set jose.JSONWebKeySet
	if err := json.Unmarshal(rec.Body.Bytes(), &set); err != nil || len(set.Keys) != 1 {
		t.Fatalf("key set %s: %v", rec.Body, err)
	}
	parsed, err := jwt.ParseSigned(token, []jose.SignatureAlgorithm{jose.RS256})
	if err != nil {
		t.Fatal(err)
	}
	var claims map[string]any
	if err := parsed.Claims(set.Keys[0].Key, &claims); err != nil || claims["sub"] != "s" {
		t.Fatalf("the token does not verify with the served key: %v %v", claims, err)
	}
	if parsed.Headers[0].KeyID != set.Keys[0].KeyID || len(set.Keys[0].KeyID) != len("dev-oidc-")+8 {
		t.Fatalf("kid %q in the token, %q in the set", parsed.Headers[0].KeyID, set.Keys[0].KeyID)
	}
	if m.key.key != nil {
		t.Fatal("one provider's use made another's key")
	}
}
