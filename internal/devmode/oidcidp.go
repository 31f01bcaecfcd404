package devmode

import (
	"encoding/json"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/latchkey/latchkey/internal/flowtoken"
	"github.com/latchkey/latchkey/internal/ids"
)

// OIDCIdP is a built-in OpenID Connect provider for dev mode only, so the
// demo's OIDC SSO connection works with no internet: discovery, JWKS, an
// authorize page where you pick or type the identity, a token endpoint
// (authorization code with PKCE, signed ID tokens carrying the nonce) and
// userinfo. It serves one client (DevOIDCClientID) whose redirect URIs are
// this server's SSO callbacks. Codes and tokens live in memory.
//
// Tests of the SSO module do not use it: they run an independent provider.
type OIDCIdP struct {
	base func() string

	key devKey

	mu     sync.Mutex
	codes  map[string]oidcGrant
	tokens map[string]oidcPerson
}

type oidcPerson struct {
	Subject, Email, First, Last string
}

type oidcGrant struct {
	person      oidcPerson
	redirectURI string
	nonce       string
	challenge   string
	expires     time.Time
}

// The dev OIDC provider's one client.
const (
	DevOIDCClientID     = "dev-oidc-client"
	DevOIDCClientSecret = "dev-oidc-secret"
)

// Suggested identities on the OIDC page.
var oidcPeople = []idpPerson{
	{Email: "michael@initech.test", First: "Michael", Last: "Bolton"},
	{Email: "samir@initech.test", First: "Samir", Last: "Nagheenanajar"},
}

// NewOIDCIdP returns the dev OpenID provider; base is the server's URL.
func NewOIDCIdP(base func() string) *OIDCIdP {
	return &OIDCIdP{base: base, key: devKey{kidPrefix: "dev-oidc-"}, codes: map[string]oidcGrant{}, tokens: map[string]oidcPerson{}}
}

// Issuer is the provider's issuer URL; its endpoints are beneath it.
func (o *OIDCIdP) Issuer() string { return o.base() + "/dev/oidc" }

// Register mounts the provider on mux.
func (o *OIDCIdP) Register(mux interface {
	HandleFunc(string, func(http.ResponseWriter, *http.Request))
}) {
	mux.HandleFunc("GET /dev/oidc/.well-known/openid-configuration", o.discovery)
	mux.HandleFunc("GET /dev/oidc/jwks", o.jwks)
	mux.HandleFunc("GET /dev/oidc/authorize", o.page)
	mux.HandleFunc("POST /dev/oidc/authorize", o.approve)
	mux.HandleFunc("POST /dev/oidc/token", o.token)
	mux.HandleFunc("GET /dev/oidc/userinfo", o.userinfo)
}

// redirectOK accepts this server's SSO callbacks, the only redirect URIs
// the dev client has.
func (o *OIDCIdP) redirectOK(clientID, uri string) bool {
	rest, ok := strings.CutPrefix(uri, o.base()+"/v1/b2b/sso/callback/")
	return clientID == DevOIDCClientID && ok && rest != "" && !strings.ContainsAny(rest, "/?#")
}

func (o *OIDCIdP) page(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	if !o.redirectOK(q.Get("client_id"), q.Get("redirect_uri")) {
		http.Error(w, "dev OIDC IdP: unknown client_id or unregistered redirect_uri", http.StatusBadRequest)
		return
	}
	if q.Get("response_type") != "code" || q.Get("code_challenge_method") != "S256" || q.Get("code_challenge") == "" {
		http.Error(w, "dev OIDC IdP: only the authorization code flow with PKCE (S256) is served", http.StatusBadRequest)
		return
	}
	hidden := map[string]string{}
	for _, k := range []string{"client_id", "redirect_uri", "state", "nonce", "code_challenge"} {
		hidden[k] = q.Get(k)
	}
	renderIdPPage(w, idpPageView{Title: "Dev OIDC identity provider", Intro: "Dev mode stands in for your company's " +
		"OpenID Connect provider. Pick a person or type an identity; nothing leaves this machine.",
		Hidden: hidden, People: oidcPeople, Deny: true, Hint: q.Get("login_hint")})
}

func (o *OIDCIdP) approve(w http.ResponseWriter, r *http.Request) {
	a, ok := readApproval(w, r, "dev OIDC IdP", o.redirectOK)
	if !ok {
		return
	}
	person := oidcPerson{Subject: "dev-" + ids.Hash(a.email)[:16], Email: a.email, First: a.field("first_name"), Last: a.field("last_name")}
	a.grant(w, r, func(code string) {
		o.mu.Lock()
		defer o.mu.Unlock()
		o.codes[code] = oidcGrant{person: person, redirectURI: a.redirect, nonce: a.form.Get("nonce"),
			challenge: a.form.Get("code_challenge"), expires: time.Now().Add(5 * time.Minute)}
	})
}

func (o *OIDCIdP) token(w http.ResponseWriter, r *http.Request) {
	if r.ParseForm() != nil {
		mockError(w, "invalid_request")
		return
	}
	clientID, secret := clientCredentials(r)
	if clientID != DevOIDCClientID || secret != DevOIDCClientSecret {
		mockError(w, "invalid_client")
		return
	}
	code := r.PostForm.Get("code")
	o.mu.Lock()
	g, found := o.codes[code]
	delete(o.codes, code)
	o.mu.Unlock()
	if !found || time.Now().After(g.expires) || g.redirectURI != r.PostForm.Get("redirect_uri") ||
		flowtoken.CheckPKCE(g.challenge, r.PostForm.Get("code_verifier"), "flow") != nil {
		mockError(w, "invalid_grant")
		return
	}
	idt, err := o.idToken(g)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	access := ids.Token()
	o.mu.Lock()
	o.tokens[access] = g.person
	o.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{"access_token": access, "token_type": "Bearer", "expires_in": 3600,
		"id_token": idt, "scope": "openid email profile"})
}

func (p oidcPerson) claims() map[string]any {
	return map[string]any{"sub": p.Subject, "email": p.Email, "email_verified": true, "given_name": p.First,
		"family_name": p.Last, "name": strings.TrimSpace(p.First + " " + p.Last)}
}

func (o *OIDCIdP) idToken(g oidcGrant) (string, error) {
	now := time.Now()
	claims := g.person.claims()
	claims["iss"], claims["aud"], claims["iat"], claims["exp"] = o.Issuer(), DevOIDCClientID, now.Unix(), now.Add(time.Hour).Unix()
	if g.nonce != "" {
		claims["nonce"] = g.nonce
	}
	return o.key.sign(claims)
}

func (o *OIDCIdP) discovery(w http.ResponseWriter, _ *http.Request) {
	iss := o.Issuer()
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{"issuer": iss, "authorization_endpoint": iss + "/authorize",
		"token_endpoint": iss + "/token", "userinfo_endpoint": iss + "/userinfo", "jwks_uri": iss + "/jwks",
		"response_types_supported": []string{"code"}, "subject_types_supported": []string{"public"},
		"id_token_signing_alg_values_supported": []string{"RS256"}, "code_challenge_methods_supported": []string{"S256"}})
}

func (o *OIDCIdP) jwks(w http.ResponseWriter, _ *http.Request) { o.key.serveJWKS(w) }

func (o *OIDCIdP) userinfo(w http.ResponseWriter, r *http.Request) {
	access := strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
	o.mu.Lock()
	p, ok := o.tokens[access]
	o.mu.Unlock()
	if !ok {
		w.Header().Set("WWW-Authenticate", `Bearer error="invalid_token"`)
		http.Error(w, `{"error":"invalid_token"}`, http.StatusUnauthorized)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(p.claims())
}
