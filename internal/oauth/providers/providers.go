// Package providers speaks to the five OAuth providers of B2B login:
// Google and Microsoft as OpenID Connect providers (discovery, JWKS-checked
// ID tokens, nonce, PKCE), and HubSpot, Slack and GitHub through their own
// token and user APIs. Every endpoint can be overridden (an issuer for the
// OIDC pair; authorize, token and API URLs for the others), for tests, for
// sovereign clouds and for compatible providers.
//
// A provider turns an authorization code into an Identity: who the person
// is at the provider, their email address as the provider gave it (the
// oauth package normalizes it, refusing one that is unusable), whether the
// provider verified it, which tenants (Google hosted domain, Microsoft
// tenant, Slack team, GitHub organizations, HubSpot portal) they belong to,
// and the provider's tokens.
package providers

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"time"

	"golang.org/x/oauth2"

	"github.com/latchkey/latchkey/internal/oauth/authparams"
	"github.com/latchkey/latchkey/internal/oauth/endpointerr"
	"github.com/latchkey/latchkey/internal/providertokens"
)

// The providers.
const (
	Google    = "google"
	Microsoft = "microsoft"
	HubSpot   = "hubspot"
	Slack     = "slack"
	GitHub    = "github"
)

// All lists the providers in the order the widget shows them.
var All = []string{Google, Microsoft, HubSpot, Slack, GitHub}

// Known reports whether name is one of All.
func Known(name string) bool { return slices.Contains(All, name) }

// IsOIDC reports whether the provider is configured by issuer (OpenID
// Connect discovery) rather than by endpoint URLs.
func IsOIDC(name string) bool { return name == Google || name == Microsoft }

// Config is a project's configuration of one provider, secret in clear.
type Config struct {
	ClientID     string
	ClientSecret string
	// Issuer overrides the OIDC issuer (google, microsoft).
	Issuer string
	// AuthorizeURL, TokenURL and APIURL override the endpoints of hubspot,
	// slack and github.
	AuthorizeURL string
	TokenURL     string
	APIURL       string
}

// Tenant is an account, workspace or organization at the provider.
type Tenant struct {
	ID   string `json:"tenant_id"`
	Name string `json:"tenant_name"`
}

// Tokens are what the provider handed back.
type Tokens = providertokens.Tokens

// Identity is the person at the provider.
type Identity struct {
	Provider      string   `json:"provider"`
	Subject       string   `json:"subject"`
	Email         string   `json:"email"`
	EmailVerified bool     `json:"email_verified"`
	Name          string   `json:"name"`
	Picture       string   `json:"picture"`
	Locale        string   `json:"locale"`
	Tenants       []Tenant `json:"tenants"`
	Tokens        Tokens   `json:"tokens"`
	// IDToken describes the verified ID token the identity was read from
	// (OIDC providers); it stays with the request, out of tickets.
	IDToken *IDTokenInfo `json:"-"`
}

// IDTokenInfo is what a caller of VerifyIDToken may still have to check
// itself: the nonce (VerifyIDToken compares it only when one is expected)
// and when the token stops being accepted.
type IDTokenInfo struct {
	Nonce  string
	Expiry time.Time
	// Payload is the signed claims as decoded and verified: what a caller
	// spends a token by (One Tap), where the token's text has several
	// spellings.
	Payload []byte
}

// TenantIDs lists the identity's tenant ids.
func (id *Identity) TenantIDs() []string {
	out := make([]string, 0, len(id.Tenants))
	for _, t := range id.Tenants {
		out = append(out, t.ID)
	}
	return out
}

// AuthRequest is what goes into the authorization URL.
type AuthRequest struct {
	State       string
	RedirectURI string
	// Nonce binds the ID token to this request (OIDC providers).
	Nonce string
	// Verifier is our own PKCE verifier towards the provider (its S256
	// challenge goes into the URL; the verifier into the code exchange).
	Verifier string
	// Scopes are added to the provider's defaults.
	Scopes []string
	// Params are extra authorization parameters (provider_* of the start
	// URL, e.g. prompt or login_hint).
	Params map[string]string
}

// Provider is one configured provider.
type Provider interface {
	// AuthCodeURL is where the browser goes to log in.
	AuthCodeURL(r AuthRequest) string
	// Exchange redeems the code from the callback.
	Exchange(ctx context.Context, code string, r AuthRequest) (*Identity, error)
	// Refresh redeems a refresh token at the provider's token endpoint
	// (the refresh_token grant, RFC 6749 section 6) for a new access
	// token. The answer's refresh token is the one sent when the provider
	// kept it (most do; some rotate it), its scopes empty when it did not
	// say, its ID token "" when it sent none.
	Refresh(ctx context.Context, refreshToken string) (Tokens, error)
}

// ErrProvider marks failures of the provider's side (a refused code, an
// unreadable answer, an ID token that does not verify).
var ErrProvider = errors.New("providers: provider refused or answered badly")

// The ID token failures a caller may answer with a type of its own (One
// Tap does); each comes wrapped with ErrProvider too.
var (
	ErrIDTokenExpired  = errors.New("providers: id token expired")
	ErrIDTokenAudience = errors.New("providers: id token issued for another client")
)

// Factory builds providers; it caches OIDC discovery per issuer.
type Factory struct {
	HTTP *http.Client
	oidc *oidcCache
}

// NewFactory returns a factory using client (nil: a client with a timeout).
func NewFactory(client *http.Client) *Factory {
	if client == nil {
		client = &http.Client{Timeout: 15 * time.Second}
	}
	return &Factory{HTTP: client, oidc: newOIDCCache()}
}

// New returns the named provider with its configuration.
func (f *Factory) New(ctx context.Context, name string, c Config) (Provider, error) {
	switch name {
	case Google, Microsoft:
		return f.newOIDC(ctx, name, c)
	case GitHub:
		return newGitHub(f.HTTP, c), nil
	case Slack:
		return newSlack(f.HTTP, c), nil
	case HubSpot:
		return newHubSpot(f.HTTP, c), nil
	}
	return nil, fmt.Errorf("providers: unknown provider %q", name)
}

// oauth2Config is the x/oauth2 configuration shared by every provider.
func oauth2Config(c Config, authURL, tokenURL string, scopes []string, style oauth2.AuthStyle) *oauth2.Config {
	return &oauth2.Config{ClientID: c.ClientID, ClientSecret: c.ClientSecret, Scopes: scopes,
		Endpoint: oauth2.Endpoint{AuthURL: authURL, TokenURL: tokenURL, AuthStyle: style}}
}

// authOptions are the URL options every provider sends.
func authOptions(r AuthRequest, pkce bool) []oauth2.AuthCodeOption {
	opts := []oauth2.AuthCodeOption{oauth2.SetAuthURLParam("redirect_uri", r.RedirectURI)}
	if pkce && r.Verifier != "" {
		opts = append(opts, oauth2.S256ChallengeOption(r.Verifier))
	}
	if r.Nonce != "" {
		opts = append(opts, oauth2.SetAuthURLParam("nonce", r.Nonce))
	}
	for k, v := range r.Params {
		// Ours to set (authparams.Reserved): a provider_* parameter is
		// dropped rather than override them.
		if !authparams.Reserved(k) {
			opts = append(opts, oauth2.SetAuthURLParam(k, v))
		}
	}
	return opts
}

// refresh is Provider.Refresh at cfg's token endpoint. An answer without
// a refresh token comes back with the one sent (x/oauth2 puts it there).
func refresh(ctx context.Context, client *http.Client, cfg *oauth2.Config, refreshToken string) (Tokens, error) {
	ctx = context.WithValue(ctx, oauth2.HTTPClient, client)
	// A token without an access token is never valid: the source goes
	// straight to the refresh_token grant.
	tok, err := cfg.TokenSource(ctx, &oauth2.Token{RefreshToken: refreshToken}).Token()
	if err != nil {
		return Tokens{}, fmt.Errorf("%w: token refresh: %v", ErrProvider, endpointerr.Token(err, refreshToken, cfg.ClientSecret))
	}
	return providertokens.FromOAuth2(tok, nil), nil
}

// exchange redeems a code with the provider's token endpoint.
func exchange(ctx context.Context, client *http.Client, cfg *oauth2.Config, code string, r AuthRequest, pkce bool) (*oauth2.Token, error) {
	ctx = context.WithValue(ctx, oauth2.HTTPClient, client)
	opts := []oauth2.AuthCodeOption{oauth2.SetAuthURLParam("redirect_uri", r.RedirectURI)}
	if pkce && r.Verifier != "" {
		opts = append(opts, oauth2.VerifierOption(r.Verifier))
	}
	tok, err := cfg.Exchange(ctx, code, opts...)
	if err != nil {
		return nil, fmt.Errorf("%w: token exchange: %v", ErrProvider, endpointerr.Token(err, code, r.Verifier, cfg.ClientSecret))
	}
	return tok, nil
}
