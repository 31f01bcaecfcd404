package devmode

import (
	"context"
	"encoding/json"
	"fmt"
	"html/template"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	_ "embed"

	"github.com/latchkey/latchkey/internal/flowtoken"
	"github.com/latchkey/latchkey/internal/httpapi"
	"github.com/latchkey/latchkey/internal/ids"
	"github.com/latchkey/latchkey/internal/oauth"
	"github.com/latchkey/latchkey/internal/oauth/providers"
)

// OAuthMock is a built-in stand-in for the five OAuth providers, for dev
// mode only: `make run` shows OAuth with no internet. Each provider lives
// under /dev/oauth/{provider} and speaks that provider's protocol as
// Latchkey's client uses it (OpenID Connect with discovery, JWKS and signed
// ID tokens for google and microsoft; authorize, token and user APIs for
// github, slack and hubspot). Its authorize page lets you pick or type the
// identity. Codes and tokens live in memory: this is a dev toy, not state.
//
// Tests do not use it: they run independent implementations.
type OAuthMock struct {
	base func() string
	key  devKey

	mu     sync.Mutex
	codes  map[string]mockGrant
	tokens map[string]MockIdentity
}

// MockIdentity is who you are at a mock provider.
type MockIdentity struct {
	Provider string
	Subject  string
	Email    string
	Name     string
	Tenant   string // Workspace domain, Entra tenant, Slack team, GitHub org id, HubSpot portal id
}

type mockGrant struct {
	id          MockIdentity
	redirectURI string
	nonce       string
	challenge   string
	clientID    string
	expires     time.Time
}

// MockClientID and MockClientSecret are the credentials the demo project
// is configured with for provider p.
func MockClientID(p string) string     { return "dev-" + p + "-client" }
func MockClientSecret(p string) string { return "dev-" + p + "-secret" }

// NewOAuthMock returns the mock providers; base is the server's URL.
func NewOAuthMock(base func() string) *OAuthMock {
	return &OAuthMock{base: base, key: devKey{kidPrefix: "dev-"}, codes: map[string]mockGrant{}, tokens: map[string]MockIdentity{}}
}

// Issuer is the mock's base URL for provider p (the OIDC issuer of google
// and microsoft; the authorize/token/API prefix of the others).
func (m *OAuthMock) Issuer(p string) string { return m.base() + "/dev/oauth/" + p }

// Register mounts the mock on mux.
func (m *OAuthMock) Register(mux interface {
	HandleFunc(string, func(http.ResponseWriter, *http.Request))
}) {
	mux.HandleFunc("GET /dev/oauth/{provider}/authorize", m.page)
	mux.HandleFunc("POST /dev/oauth/{provider}/authorize", m.approve)
	mux.HandleFunc("POST /dev/oauth/{provider}/token", m.token)
	mux.HandleFunc("GET /dev/oauth/{provider}/.well-known/openid-configuration", m.discovery)
	mux.HandleFunc("GET /dev/oauth/{provider}/jwks", m.jwks)
	mux.HandleFunc("GET /dev/oauth/{provider}/api/{rest...}", m.api)
}

var mockProviders = map[string]string{"google": "Google", "microsoft": "Microsoft", "hubspot": "HubSpot", "slack": "Slack", "github": "GitHub"}

// Suggested identities on the page (the demo organizations' people).
var mockPeople = []MockIdentity{
	{Email: "ada@acme.test", Name: "Ada Lovelace", Tenant: "acme.test"},
	{Email: "grace@globex.test", Name: "Grace Hopper", Tenant: "globex.test"},
	{Email: "new.person@globex.test", Name: "New Person", Tenant: "globex.test"},
	// Not a globex.test address, but in Globex's Workspace: joins by OAuth tenant JIT.
	{Email: "pat@contractor.test", Name: "Pat Contractor", Tenant: "globex.test"},
}

//go:embed oauthmock.html.tmpl
var mockPageHTML string

// Parsed on first use, like demoTemplate.
var mockPage = sync.OnceValue(func() *template.Template { return template.Must(template.New("oauthmock").Parse(mockPageHTML)) })

func (m *OAuthMock) page(w http.ResponseWriter, r *http.Request) {
	p := r.PathValue("provider")
	name, ok := mockProviders[p]
	if !ok {
		http.NotFound(w, r)
		return
	}
	q := r.URL.Query()
	if q.Get("client_id") != MockClientID(p) || q.Get("redirect_uri") != m.base()+"/v1/b2b/public/oauth/callback" {
		http.Error(w, "mock "+name+": unknown client_id or unregistered redirect_uri", http.StatusBadRequest)
		return
	}
	hint := q.Get("login_hint")
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	httpapi.SetPageCSP(w, httpapi.CSP{Nonce: httpapi.NewNonce(), InlineStyles: true})
	_ = mockPage().Execute(w, map[string]any{"Provider": name, "Query": q, "People": mockPeople, "Hint": hint,
		"TenantLabel": map[string]string{"google": "Workspace domain (hd)", "microsoft": "Entra tenant id (tid)",
			"slack": "Slack team id", "github": "GitHub organization id", "hubspot": "HubSpot portal id"}[p]})
}

func (m *OAuthMock) approve(w http.ResponseWriter, r *http.Request) {
	p := r.PathValue("provider")
	if _, ok := mockProviders[p]; !ok {
		http.NotFound(w, r)
		return
	}
	a, ok := readApproval(w, r, "mock", func(clientID, redirect string) bool {
		return clientID == MockClientID(p) && redirect == m.base()+"/v1/b2b/public/oauth/callback"
	})
	if !ok {
		return
	}
	id := MockIdentity{Provider: p, Subject: p + "-" + ids.Hash(a.email)[:12], Email: a.email,
		Name: a.field("name"), Tenant: a.field("tenant")}
	a.grant(w, r, func(code string) {
		m.mu.Lock()
		defer m.mu.Unlock()
		m.codes[code] = mockGrant{id: id, redirectURI: a.redirect, nonce: a.form.Get("nonce"),
			challenge: a.form.Get("code_challenge"), clientID: a.form.Get("client_id"), expires: time.Now().Add(5 * time.Minute)}
	})
}

func (m *OAuthMock) token(w http.ResponseWriter, r *http.Request) {
	p := r.PathValue("provider")
	if r.ParseForm() != nil {
		mockError(w, "invalid_request")
		return
	}
	clientID, secret := clientCredentials(r)
	if clientID != MockClientID(p) || secret != MockClientSecret(p) {
		mockError(w, "invalid_client")
		return
	}
	code := r.PostForm.Get("code")
	m.mu.Lock()
	g, found := m.codes[code]
	delete(m.codes, code)
	m.mu.Unlock()
	if !found || time.Now().After(g.expires) || g.redirectURI != r.PostForm.Get("redirect_uri") ||
		flowtoken.CheckPKCE(g.challenge, r.PostForm.Get("code_verifier"), "flow") != nil {
		mockError(w, "invalid_grant")
		return
	}
	access := ids.Token()
	m.mu.Lock()
	m.tokens[access] = g.id
	m.mu.Unlock()
	out := map[string]any{"access_token": access, "token_type": "Bearer", "expires_in": 3600, "refresh_token": ids.Token()}
	if p == "google" || p == "microsoft" {
		idt, err := m.idToken(p, g)
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		out["id_token"], out["scope"] = idt, "openid email profile"
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(out)
}

func mockError(w http.ResponseWriter, code string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusBadRequest)
	_ = json.NewEncoder(w).Encode(map[string]string{"error": code})
}

func (m *OAuthMock) idToken(p string, g mockGrant) (string, error) {
	now := time.Now()
	claims := map[string]any{"iss": m.Issuer(p), "aud": g.clientID, "sub": g.id.Subject, "email": g.id.Email,
		"email_verified": true, "name": g.id.Name, "iat": now.Unix(), "exp": now.Add(time.Hour).Unix()}
	if g.nonce != "" {
		claims["nonce"] = g.nonce
	}
	if g.id.Tenant != "" {
		claims[map[string]string{"google": "hd", "microsoft": "tid"}[p]] = g.id.Tenant
	}
	return m.key.sign(claims)
}

func (m *OAuthMock) discovery(w http.ResponseWriter, r *http.Request) {
	p := r.PathValue("provider")
	if p != "google" && p != "microsoft" {
		http.NotFound(w, r)
		return
	}
	iss := m.Issuer(p)
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{"issuer": iss, "authorization_endpoint": iss + "/authorize",
		"token_endpoint": iss + "/token", "jwks_uri": iss + "/jwks", "response_types_supported": []string{"code"},
		"subject_types_supported": []string{"public"}, "id_token_signing_alg_values_supported": []string{"RS256"},
		"code_challenge_methods_supported": []string{"S256"}})
}

func (m *OAuthMock) jwks(w http.ResponseWriter, _ *http.Request) { m.key.serveJWKS(w) }

// api answers the user APIs of github, slack and hubspot.
func (m *OAuthMock) api(w http.ResponseWriter, r *http.Request) {
	p, rest := r.PathValue("provider"), r.PathValue("rest")
	access := strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
	m.mu.Lock()
	id, ok := m.tokens[access]
	m.mu.Unlock()
	if !ok || id.Provider != p {
		http.Error(w, `{"message":"Bad credentials"}`, http.StatusUnauthorized)
		return
	}
	num := func(s string) int64 { n, _ := strconv.ParseInt(s, 10, 64); return n }
	userID := func() int64 { n, _ := strconv.ParseInt(ids.Hash(id.Email)[:6], 16, 64); return n + 1000 }
	var out any
	switch {
	case p == "github" && rest == "user":
		out = map[string]any{"id": userID(), "login": strings.Split(id.Email, "@")[0], "name": id.Name}
	case p == "github" && rest == "user/emails":
		out = []any{map[string]any{"email": id.Email, "primary": true, "verified": true}}
	case p == "github" && rest == "user/orgs":
		orgs := []any{}
		if id.Tenant != "" {
			orgs = append(orgs, map[string]any{"id": num(id.Tenant), "login": "org-" + id.Tenant})
		}
		out = orgs
	case p == "slack" && rest == "openid.connect.userInfo":
		out = map[string]any{"ok": true, "sub": id.Subject, "email": id.Email, "email_verified": true, "name": id.Name,
			"https://slack.com/team_id": id.Tenant, "https://slack.com/team_name": id.Tenant}
	case p == "hubspot" && rest == "oauth/v1/access-tokens/"+access:
		out = map[string]any{"user": id.Email, "user_id": userID(), "hub_id": num(id.Tenant),
			"hub_domain": id.Tenant, "scopes": []string{"oauth"}}
	default:
		http.NotFound(w, r)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(out)
}

// SeedOAuth points the demo project's five providers at the mock, so the
// demo's OAuth buttons work offline. It runs at every dev start (the base
// URL may have changed); the mock's client secrets are public anyway.
func SeedOAuth(ctx context.Context, m *oauth.Module, projectID, base string) error {
	for p := range mockProviders {
		c := providers.Config{ClientID: MockClientID(p), ClientSecret: MockClientSecret(p)}
		prefix := base + "/dev/oauth/" + p
		if providers.IsOIDC(p) {
			c.Issuer = prefix
		} else {
			c.AuthorizeURL, c.TokenURL, c.APIURL = prefix+"/authorize", prefix+"/token", prefix+"/api"
		}
		if err := m.SaveConfig(ctx, oauth.ProviderConfig{ProjectID: projectID, Provider: p, Config: c}); err != nil {
			return fmt.Errorf("devmode: seed %s oauth: %w", p, err)
		}
	}
	return nil
}
