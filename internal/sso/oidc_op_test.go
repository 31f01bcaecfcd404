package sso_test

import (
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"

	"github.com/latchkey/latchkey/internal/apptest"
	"github.com/latchkey/latchkey/internal/apptest/testkeys"
)

// signingOP is a small OpenID provider on loopback whose ID tokens are
// signed with the algorithm of its choosing (mockoidc signs RS256 only):
// discovery advertising the algorithms it is told to, JWKS, an
// authorization endpoint that logs its user in at once, and a token
// endpoint checking client credentials, redirect URI and PKCE (S256).
type signingOP struct {
	t                    *testing.T
	srv                  *httptest.Server
	clientID, secret     string
	alg                  string   // "none" signs nothing
	advertised           []string // id_token_signing_alg_values_supported
	signer               jose.Signer
	jwks                 jose.JSONWebKeySet
	mu                   sync.Mutex
	codes                map[string]url.Values // code -> the authorization request
	subject, email, name string
	// respell, when set, names the apptest.Respellings spelling its token
	// endpoint sends the ID token in (guarded by mu).
	respell string
	// published, when set, is the issuer its discovery document and ID
	// tokens name instead of issuer() (another spelling of it: a trailing
	// slash); its endpoints stay under issuer(). Set before any request.
	published string
}

func newSigningOP(t *testing.T, alg string, advertised ...string) *signingOP {
	t.Helper()
	op := &signingOP{t: t, clientID: "client-" + alg, secret: "secret-for-" + alg + "-0123456789abcdef0123456789",
		alg: alg, advertised: advertised, codes: map[string]url.Values{},
		subject: "sub-" + alg, email: "user@acme.test", name: "Alg User"}
	var priv, pub any
	switch alg {
	case "RS256", "PS384":
		k := testkeys.Next()
		priv, pub = k, &k.PublicKey
	case "ES256":
		k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		if err != nil {
			t.Fatal(err)
		}
		priv, pub = k, &k.PublicKey
	case "EdDSA":
		p, k, err := ed25519.GenerateKey(rand.Reader)
		if err != nil {
			t.Fatal(err)
		}
		priv, pub = k, p
	case "HS256":
		// A provider that signs with the client secret and, as some
		// misconfigured ones do, publishes that key in its JWKS (an "oct"
		// key with no alg, which go-oidc loads): had HS256 been allowed,
		// these tokens would verify.
		priv, pub = []byte(op.secret), []byte(op.secret)
	case "none":
	default:
		t.Fatalf("signingOP: no key for %s", alg)
	}
	if alg != "none" {
		kid := "key-" + strings.ToLower(alg)
		s, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.SignatureAlgorithm(alg), Key: jose.JSONWebKey{Key: priv, KeyID: kid}},
			(&jose.SignerOptions{}).WithType("JWT"))
		if err != nil {
			t.Fatal(err)
		}
		op.signer = s
		jwk := jose.JSONWebKey{Key: pub, KeyID: kid, Use: "sig"}
		if alg != "HS256" {
			jwk.Algorithm = alg
		}
		op.jwks.Keys = []jose.JSONWebKey{jwk}
	}
	mux := http.NewServeMux()
	op.srv = httptest.NewServer(mux)
	t.Cleanup(op.srv.Close)
	mux.HandleFunc("GET /.well-known/openid-configuration", op.discovery)
	mux.HandleFunc("GET /jwks", func(w http.ResponseWriter, _ *http.Request) { writeJSON(w, op.jwks) })
	mux.HandleFunc("GET /authorize", op.authorize)
	mux.HandleFunc("POST /token", op.token)
	return op
}

func (op *signingOP) setRespell(name string) {
	op.mu.Lock()
	op.respell = name
	op.mu.Unlock()
}

func (op *signingOP) issuer() string { return op.srv.URL }

// iss is the issuer the provider publishes and stamps its ID tokens with.
func (op *signingOP) iss() string {
	if op.published != "" {
		return op.published
	}
	return op.issuer()
}

func (op *signingOP) discovery(w http.ResponseWriter, _ *http.Request) {
	writeJSON(w, map[string]any{"issuer": op.iss(), "authorization_endpoint": op.issuer() + "/authorize",
		"token_endpoint": op.issuer() + "/token", "jwks_uri": op.issuer() + "/jwks",
		"response_types_supported": []string{"code"}, "subject_types_supported": []string{"public"},
		"id_token_signing_alg_values_supported": op.advertised, "code_challenge_methods_supported": []string{"S256"}})
}

// authorize logs the user in at once and sends the browser back with a code.
func (op *signingOP) authorize(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	if q.Get("client_id") != op.clientID || q.Get("response_type") != "code" || q.Get("code_challenge_method") != "S256" {
		http.Error(w, "bad authorization request", http.StatusBadRequest)
		return
	}
	code := randomString(op.t)
	op.mu.Lock()
	op.codes[code] = q
	op.mu.Unlock()
	back, err := url.Parse(q.Get("redirect_uri"))
	if err != nil {
		http.Error(w, "bad redirect_uri", http.StatusBadRequest)
		return
	}
	v := back.Query()
	v.Set("code", code)
	v.Set("state", q.Get("state"))
	back.RawQuery = v.Encode()
	http.Redirect(w, r, back.String(), http.StatusFound)
}

func (op *signingOP) token(w http.ResponseWriter, r *http.Request) {
	if err := r.ParseForm(); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	id, secret, ok := r.BasicAuth()
	if !ok {
		id, secret = r.PostForm.Get("client_id"), r.PostForm.Get("client_secret")
	}
	if id != op.clientID || secret != op.secret {
		w.WriteHeader(http.StatusUnauthorized)
		writeJSON(w, map[string]string{"error": "invalid_client"})
		return
	}
	op.mu.Lock()
	authz, found := op.codes[r.PostForm.Get("code")]
	delete(op.codes, r.PostForm.Get("code"))
	op.mu.Unlock()
	sum := sha256.Sum256([]byte(r.PostForm.Get("code_verifier")))
	if !found || r.PostForm.Get("redirect_uri") != authz.Get("redirect_uri") ||
		base64.RawURLEncoding.EncodeToString(sum[:]) != authz.Get("code_challenge") {
		w.WriteHeader(http.StatusBadRequest)
		writeJSON(w, map[string]string{"error": "invalid_grant"})
		return
	}
	// The server's fake clock follows the real one in these tests.
	now := time.Now()
	claims, _ := json.Marshal(map[string]any{"iss": op.iss(), "sub": op.subject, "aud": op.clientID,
		"iat": now.Unix(), "exp": now.Add(10 * time.Minute).Unix(), "nonce": authz.Get("nonce"),
		"email": op.email, "email_verified": true, "name": op.name})
	writeJSON(w, map[string]any{"access_token": randomString(op.t), "token_type": "Bearer", "expires_in": 3600,
		"id_token": op.sign(claims)})
}

func (op *signingOP) sign(payload []byte) string {
	if op.alg == "none" {
		// An unsecured JWT (RFC 7519 section 6): no signature at all.
		enc := base64.RawURLEncoding.EncodeToString
		return enc([]byte(`{"alg":"none","typ":"JWT"}`)) + "." + enc(payload) + "."
	}
	jws, err := op.signer.Sign(payload)
	if err != nil {
		op.t.Error(err)
		return ""
	}
	compact, err := jws.CompactSerialize()
	if err != nil {
		op.t.Error(err)
	}
	op.mu.Lock()
	respell := op.respell
	op.mu.Unlock()
	if respell != "" {
		s, ok := apptest.Respellings(op.t, compact)[respell]
		if !ok {
			op.t.Errorf("no %s spelling of %s", respell, compact)
		}
		return s
	}
	return compact
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(v)
}

func randomString(t *testing.T) string {
	b := make([]byte, 16)
	if _, err := rand.Read(b); err != nil {
		t.Error(err)
	}
	return base64.RawURLEncoding.EncodeToString(b)
}
