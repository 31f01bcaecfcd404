package providers

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/coreos/go-oidc/v3/oidc"
	"golang.org/x/oauth2"

	"github.com/latchkey/latchkey/internal/compactjws"
	"github.com/latchkey/latchkey/internal/oauth/endpointerr"
	"github.com/latchkey/latchkey/internal/providertokens"
)

// Default issuers. Microsoft's multi-tenant "organizations" endpoint
// publishes the issuer template https://login.microsoftonline.com/{tenantid}/v2.0,
// which never equals the discovery URL: see verifyIssuer.
const (
	GoogleIssuer    = "https://accounts.google.com"
	MicrosoftIssuer = "https://login.microsoftonline.com/organizations/v2.0"
)

// discoveryTTL bounds how long a discovery document (and so its JWKS URL)
// is reused; go-oidc refreshes the keys themselves when a kid is unknown.
const discoveryTTL = time.Hour

type oidcEntry struct {
	p       *oidc.Provider
	fetched time.Time
}

type oidcCache struct {
	mu    sync.Mutex
	items map[string]oidcEntry
}

func newOIDCCache() *oidcCache { return &oidcCache{items: map[string]oidcEntry{}} }

func (f *Factory) discover(ctx context.Context, issuer string) (*oidc.Provider, error) {
	f.oidc.mu.Lock()
	e, ok := f.oidc.items[issuer]
	f.oidc.mu.Unlock()
	if ok && time.Since(e.fetched) < discoveryTTL {
		return e.p, nil
	}
	// The keys are fetched later, outside this request: the remote key set
	// must not inherit a context that ends with it.
	ctx = oidc.ClientContext(context.WithoutCancel(ctx), f.HTTP)
	// The issuer check is ours (verifyIssuer): Microsoft's template issuer
	// would fail go-oidc's equality test.
	p, err := oidc.NewProvider(oidc.InsecureIssuerURLContext(ctx, issuer), issuer)
	if err != nil {
		return nil, fmt.Errorf("%w: discovery of %s: %v", ErrProvider, issuer, err)
	}
	f.oidc.mu.Lock()
	f.oidc.items[issuer] = oidcEntry{p: p, fetched: time.Now()}
	f.oidc.mu.Unlock()
	return p, nil
}

type oidcProvider struct {
	name     string
	http     *http.Client
	cfg      *oauth2.Config
	provider *oidc.Provider
	issuer   string // the configured (discovery) issuer
	claimed  string // the issuer the discovery document declares
}

func (f *Factory) newOIDC(ctx context.Context, name string, c Config) (Provider, error) {
	issuer := c.Issuer
	if issuer == "" {
		issuer = map[string]string{Google: GoogleIssuer, Microsoft: MicrosoftIssuer}[name]
	}
	p, err := f.discover(ctx, issuer)
	if err != nil {
		return nil, err
	}
	var doc struct {
		Issuer string `json:"issuer"`
	}
	if err := p.Claims(&doc); err != nil {
		return nil, fmt.Errorf("%w: discovery of %s: %v", ErrProvider, issuer, err)
	}
	cfg := oauth2Config(c, p.Endpoint().AuthURL, p.Endpoint().TokenURL, []string{oidc.ScopeOpenID, "email", "profile"},
		oauth2.AuthStyleAutoDetect)
	return &oidcProvider{name: name, http: f.HTTP, cfg: cfg, provider: p, issuer: issuer, claimed: doc.Issuer}, nil
}

// Refresh implements Provider at the token endpoint.
func (o *oidcProvider) Refresh(ctx context.Context, refreshToken string) (Tokens, error) {
	return refresh(ctx, o.http, o.cfg, refreshToken)
}

func (o *oidcProvider) AuthCodeURL(r AuthRequest) string {
	c := *o.cfg
	c.Scopes = mergeScopes(o.cfg.Scopes, r.Scopes)
	return c.AuthCodeURL(r.State, authOptions(r, true)...)
}

func (o *oidcProvider) Exchange(ctx context.Context, code string, r AuthRequest) (*Identity, error) {
	c := *o.cfg
	c.Scopes = mergeScopes(o.cfg.Scopes, r.Scopes)
	tok, err := exchange(ctx, o.http, &c, code, r, true)
	if err != nil {
		return nil, err
	}
	raw, _ := tok.Extra("id_token").(string)
	if raw == "" {
		return nil, fmt.Errorf("%w: no id_token in the token response", ErrProvider)
	}
	id, err := o.VerifyIDToken(ctx, raw, r.Nonce)
	if err != nil {
		return nil, err
	}
	if id.Email == "" {
		// A provider may keep scope claims out of the ID token and serve
		// them at userinfo (OIDC Core 5.4); read them there.
		if err := o.fromUserInfo(ctx, tok, id); err != nil {
			return nil, err
		}
	}
	id.Tokens = providertokens.FromOAuth2(tok, c.Scopes)
	return id, nil
}

// fromUserInfo completes id from the userinfo endpoint, whose subject must
// be the ID token's.
func (o *oidcProvider) fromUserInfo(ctx context.Context, tok *oauth2.Token, id *Identity) error {
	ctx = oidc.ClientContext(ctx, o.http)
	info, err := o.provider.UserInfo(ctx, oauth2.StaticTokenSource(tok))
	if err != nil {
		// go-oidc quotes the refusal's whole body, which may quote the
		// token it was shown: scrubbed as a token endpoint's answer is.
		raw, _ := tok.Extra("id_token").(string)
		return fmt.Errorf("%w: userinfo: %s", ErrProvider,
			endpointerr.Scrub(endpointerr.WithoutURL(err).Error(), tok.AccessToken, tok.RefreshToken, raw))
	}
	if info.Subject != id.Subject {
		return fmt.Errorf("%w: userinfo subject differs from the id token's", ErrProvider)
	}
	var c idClaims
	if err := info.Claims(&c); err != nil {
		return fmt.Errorf("%w: userinfo claims: %v", ErrProvider, err)
	}
	id.Email, id.EmailVerified = info.Email, info.EmailVerified
	if id.Name == "" {
		id.Name = c.Name
	}
	if id.Picture == "" {
		id.Picture = c.Picture
	}
	if len(id.Tenants) == 0 && o.name == Google && c.HostedDomain != "" {
		id.Tenants = append(id.Tenants, Tenant{ID: c.HostedDomain, Name: c.HostedDomain})
	}
	return nil
}

// idClaims are the claims read from Google and Microsoft ID tokens.
type idClaims struct {
	Subject       string `json:"sub"`
	Issuer        string `json:"iss"`
	Email         string `json:"email"`
	EmailVerified *bool  `json:"email_verified"`
	Name          string `json:"name"`
	Picture       string `json:"picture"`
	Locale        string `json:"locale"`
	Nonce         string `json:"nonce"`
	HostedDomain  string `json:"hd"`       // Google Workspace domain
	TenantID      string `json:"tid"`      // Microsoft Entra tenant
	IDP           string `json:"idp"`      // Microsoft: the account's home, when not the issuer's tenant (a guest)
	AccountType   *int   `json:"acct"`     // Microsoft optional claim: 0 a member of the tenant, 1 a guest
	DomainOwner   *bool  `json:"xms_edov"` // Microsoft: the tenant verified the email's domain
	PreferredName string `json:"preferred_username"`
}

// VerifyIDToken checks an ID token's signature against the issuer's JWKS,
// its audience (our client id), expiry, issuer and, when one is expected,
// nonce, and returns the identity it names.
func (o *oidcProvider) VerifyIDToken(ctx context.Context, raw, nonce string) (*Identity, error) {
	// go-oidc verifies any spelling of the token's parts that its base64
	// decoder accepts (newlines, unused low bits); only the canonical one
	// is taken, so a token's text names one token (see compactjws).
	if err := compactjws.Check(raw); err != nil {
		return nil, fmt.Errorf("%w: id token: %w", ErrProvider, err)
	}
	ctx = oidc.ClientContext(ctx, o.http)
	// The audience is checked here rather than by go-oidc, whose refusal
	// carries no type, so that it can be told apart.
	v := o.provider.VerifierContext(ctx, &oidc.Config{SkipClientIDCheck: true, SkipIssuerCheck: true})
	t, err := v.Verify(ctx, raw)
	var expired *oidc.TokenExpiredError
	if errors.As(err, &expired) {
		return nil, fmt.Errorf("%w: %w: %v", ErrProvider, ErrIDTokenExpired, err)
	}
	if err != nil {
		return nil, fmt.Errorf("%w: id token: %v", ErrProvider, err)
	}
	if !slices.Contains(t.Audience, o.cfg.ClientID) {
		return nil, fmt.Errorf("%w: %w: audience %q", ErrProvider, ErrIDTokenAudience, t.Audience)
	}
	var c idClaims
	if err := t.Claims(&c); err != nil {
		return nil, fmt.Errorf("%w: id token claims: %v", ErrProvider, err)
	}
	var payload json.RawMessage // the verified payload's bytes, copied
	if err := t.Claims(&payload); err != nil {
		return nil, fmt.Errorf("%w: id token claims: %v", ErrProvider, err)
	}
	if err := o.verifyIssuer(c); err != nil {
		return nil, err
	}
	if nonce != "" && c.Nonce != nonce {
		return nil, fmt.Errorf("%w: id token nonce mismatch", ErrProvider)
	}
	if c.Subject == "" {
		return nil, fmt.Errorf("%w: id token without sub", ErrProvider)
	}
	id := &Identity{Provider: o.name, Subject: c.Subject, Email: c.Email, Name: c.Name, Picture: c.Picture,
		Locale: c.Locale, Tenants: []Tenant{}, IDToken: &IDTokenInfo{Nonce: t.Nonce, Expiry: t.Expiry, Payload: payload}}
	// Microsoft tokens may carry no email claim; preferred_username, often
	// an address, stands in for it, but never as verified: it is a sign-in
	// name the tenant's admin sets, and neither xms_edov nor email_verified
	// speaks of it (they are about the email claim).
	fromPreferred := false
	if id.Email == "" && o.name == Microsoft && strings.Contains(c.PreferredName, "@") {
		id.Email, fromPreferred = c.PreferredName, true
	}
	switch o.name {
	case Google:
		// Google marks addresses it verified; Workspace accounts carry hd.
		id.EmailVerified = c.EmailVerified != nil && *c.EmailVerified
		if c.HostedDomain != "" {
			id.Tenants = append(id.Tenants, Tenant{ID: c.HostedDomain, Name: c.HostedDomain})
		}
	case Microsoft:
		// Entra ID tokens carry no email_verified; the address is the
		// tenant's to vouch for, so it counts as verified only when the
		// token says so (xms_edov / email_verified from a custom issuer).
		id.EmailVerified = !fromPreferred && ((c.EmailVerified != nil && *c.EmailVerified) || (c.DomainOwner != nil && *c.DomainOwner))
		if c.TenantID != "" && c.TenantID != MicrosoftConsumersTenant && !microsoftGuest(c) {
			id.Tenants = append(id.Tenants, Tenant{ID: c.TenantID, Name: c.TenantID})
		}
	}
	return id, nil
}

// MicrosoftConsumersTenant is the tid of every personal Microsoft account
// (outlook.com, live.com, Xbox...): anyone may make one, so it is no
// organization's tenant, and naming it for tenant JIT would admit anyone.
const MicrosoftConsumersTenant = "9188040d-6c67-4c5b-b112-36a304b66dad"

// microsoftGuest reports whether a Microsoft ID token is a guest's: an
// outside account (another tenant's, or a personal one) that the token's
// tenant invited, which any member of a tenant may do by default. Its tid
// is the inviting tenant, yet that tenant vouches for nothing about it, so
// it is not in that tenant for tenant JIT or discovery. Microsoft marks it
// with idp, the account's home identity provider, which for the tenant's
// own accounts is absent or the issuer (in its v2 or v1 spelling). An
// app registration may also ask for the optional acct claim, which says
// it outright (1 a guest, 0 a member): when present it decides, so that a
// member whose sign-in the tenant federates elsewhere (an idp of its own)
// stays in the tenant.
func microsoftGuest(c idClaims) bool {
	if c.AccountType != nil {
		return *c.AccountType != 0
	}
	return c.IDP != "" && c.IDP != c.Issuer && c.IDP != "https://sts.windows.net/"+c.TenantID+"/"
}

// googleBareIssuer is the other spelling of Google's issuer: Google
// documents ID tokens with iss accounts.google.com as well as
// https://accounts.google.com.
const googleBareIssuer = "accounts.google.com"

// verifyIssuer replaces go-oidc's issuer equality: a discovery document
// with Microsoft's {tenantid} template accepts exactly the issuer of the
// token's own tenant; Google's (issuer https://accounts.google.com) also
// accepts the issuer without its scheme, which Google documents; any other
// document accepts only its own issuer.
func (o *oidcProvider) verifyIssuer(c idClaims) error {
	want := o.claimed
	if strings.Contains(want, "{tenantid}") {
		if c.TenantID == "" {
			return fmt.Errorf("%w: id token without tid for a multi-tenant issuer", ErrProvider)
		}
		want = strings.ReplaceAll(want, "{tenantid}", c.TenantID)
	}
	if want == GoogleIssuer && c.Issuer == googleBareIssuer {
		return nil
	}
	if c.Issuer != want {
		return fmt.Errorf("%w: id token issuer %q, want %q", ErrProvider, c.Issuer, want)
	}
	return nil
}

// IDTokenVerifier is implemented by the OIDC providers (Google One Tap
// submits a bare ID token).
type IDTokenVerifier interface {
	VerifyIDToken(ctx context.Context, raw, nonce string) (*Identity, error)
}

func mergeScopes(base, extra []string) []string {
	out := append([]string{}, base...)
	for _, s := range extra {
		if s != "" && !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out
}
