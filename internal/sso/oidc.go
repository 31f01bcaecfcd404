package sso

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/coreos/go-oidc/v3/oidc"
	"golang.org/x/oauth2"

	"github.com/latchkey/latchkey/internal/apierr"
	"github.com/latchkey/latchkey/internal/compactjws"
	"github.com/latchkey/latchkey/internal/emailaddr"
	"github.com/latchkey/latchkey/internal/oauth/authparams"
	"github.com/latchkey/latchkey/internal/oauth/endpointerr"
	"github.com/latchkey/latchkey/internal/providertokens"
)

// oauthConfig is the OAuth 2.0 client of an OIDC connection.
func (s *Service) oauthConfig(c *conn, base string) (*oauth2.Config, error) {
	o := c.OIDC
	secret := ""
	if o.ClientSecret != "" {
		var err error
		if secret, err = s.open(c.ID, o.ClientSecret); err != nil {
			return nil, fmt.Errorf("sso: open client secret: %w", err)
		}
	}
	scopes := []string{oidc.ScopeOpenID, "email", "profile"}
	for _, sc := range strings.Fields(o.CustomScopes) {
		if !contains(scopes, sc) {
			scopes = append(scopes, sc)
		}
	}
	return &oauth2.Config{ClientID: o.ClientID, ClientSecret: secret, RedirectURL: acsURL(base, c.ID), Scopes: scopes,
		Endpoint: oauth2.Endpoint{AuthURL: o.AuthorizationURL, TokenURL: o.TokenURL}}, nil
}

// oidcStart sends the browser to the provider's authorization endpoint:
// code flow with a nonce and PKCE (this server's own verifier, kept in
// the state ticket; the customer page's challenge is separate). The login
// is bound to the starting browser (bindingCookie): the provider comes back
// by a top-level GET, which carries the SameSite=Lax binding cookie.
func (s *Service) oidcStart(ctx context.Context, c *conn, base string, st flowState, params map[string]string,
	issue func(flowState, bool) (string, error)) (string, error) {
	conf, err := s.oauthConfig(c, base)
	if err != nil {
		return "", err
	}
	st.Nonce, st.Verifier = newNonce(), oauth2.GenerateVerifier()
	state, err := issue(st, true)
	if err != nil {
		return "", err
	}
	opts := []oauth2.AuthCodeOption{oidc.Nonce(st.Nonce), oauth2.S256ChallengeOption(st.Verifier)}
	for k, v := range params {
		// Parameters this server owns (authparams.Reserved) are dropped
		// rather than override ours: among them response_mode (the
		// callback takes the code from a GET's query, and form_post would
		// come back by a cross-site POST, which carries no SameSite=Lax
		// binding cookie) and request / request_uri (a request object
		// would override the URL's state, nonce and redirect_uri).
		if !authparams.Reserved(k) {
			opts = append(opts, oauth2.SetAuthURLParam(k, v))
		}
	}
	return conf.AuthCodeURL(state, opts...), nil
}

// keySets caches each provider's JWKS (go-oidc refetches on an unknown
// key id), so a login does not fetch the keys every time. The URLs are
// administrators' choices, and any of them can name new ones: the cache
// keeps the maxKeySets most recently used and drops the rest.
type keySets struct {
	mu   sync.Mutex
	sets map[string]*keySet
	tick uint64 // a use counter, for recency
}

type keySet struct {
	ks   *oidc.RemoteKeySet
	used uint64
}

// maxKeySets bounds the cache: far more identity providers than one
// server's logins use at once, and little memory (keys, not documents).
const maxKeySets = 256

func (k *keySets) get(ctx context.Context, url string) *oidc.RemoteKeySet {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.sets == nil {
		k.sets = map[string]*keySet{}
	}
	k.tick++
	if e, ok := k.sets[url]; ok {
		e.used = k.tick
		return e.ks
	}
	if len(k.sets) >= maxKeySets {
		// A scan, but only when a new URL arrives at a full cache.
		oldest, at := "", k.tick
		for u, e := range k.sets {
			if e.used < at {
				oldest, at = u, e.used
			}
		}
		delete(k.sets, oldest)
	}
	ks := oidc.NewRemoteKeySet(ctx, url)
	k.sets[url] = &keySet{ks: ks, used: k.tick}
	return ks
}

// len is how many key sets are cached.
func (k *keySets) len() int {
	k.mu.Lock()
	defer k.mu.Unlock()
	return len(k.sets)
}

// oidcIdentity exchanges the code (with this server's PKCE verifier),
// validates the ID token (signature from the provider's JWKS by an
// algorithm signingAlgs allows, issuer, audience, expiry, nonce), then
// reads userinfo when the connection has an endpoint for it, to fill the
// claims the ID token lacks.
func (s *Service) oidcIdentity(ctx context.Context, c *conn, base string, st *flowState, code string) (identity, error) {
	if code == "" {
		return identity{}, apierr.New(apierr.OIDCInvalidCallbackRequest)
	}
	conf, err := s.oauthConfig(c, base)
	if err != nil {
		return identity{}, err
	}
	// Key fetches outlive this request, so the key set gets a context of
	// its own carrying only the HTTP client.
	hctx := oidc.ClientContext(ctx, s.http)
	tok, err := conf.Exchange(hctx, code, oauth2.VerifierOption(st.Verifier))
	if err != nil {
		// The cause is logged: without the code, verifier and secret
		// the provider's answer may quote.
		return identity{}, apierr.Wrap(apierr.OIDCAuthCodeError,
			endpointerr.Token(err, code, st.Verifier, conf.ClientSecret))
	}
	raw, _ := tok.Extra("id_token").(string)
	if raw == "" {
		return identity{}, apierr.New(apierr.OIDCInvalidIDToken).WithMessage("The identity provider sent no ID token.")
	}
	// Nonce-bound and never spent by its text, but read like every JWT
	// here: its canonical spelling only (see compactjws).
	if err := compactjws.Check(raw); err != nil {
		return identity{}, apierr.Wrap(apierr.OIDCInvalidIDToken, err)
	}
	keys := s.keys.get(oidc.ClientContext(context.Background(), s.http), c.OIDC.JWKSURL)
	verifier := oidc.NewVerifier(c.OIDC.Issuer, keys, &oidc.Config{ClientID: c.OIDC.ClientID, Now: s.d.Clock.Now,
		SupportedSigningAlgs: signingAlgs(c.OIDC)})
	idt, err := verifier.Verify(hctx, raw)
	if err != nil {
		return identity{}, apierr.Wrap(apierr.OIDCInvalidIDToken, err)
	}
	if idt.Subject == "" {
		// OpenID Connect Core 2 requires sub, and it is the identity this
		// login registers. Without one, a userinfo answer naming no subject
		// would also match it below and be taken whole into the login's
		// attributes.
		return identity{}, apierr.New(apierr.OIDCInvalidIDToken).WithMessage("The ID token names no subject (sub).")
	}
	if idt.Nonce == "" || idt.Nonce != st.Nonce {
		return identity{}, apierr.New(apierr.OIDCInvalidIDToken).WithMessage("The ID token's nonce does not match this login.")
	}
	claims := map[string]any{}
	if err := idt.Claims(&claims); err != nil {
		return identity{}, apierr.Wrap(apierr.OIDCInvalidIDToken, err)
	}
	if err := checkIDTokenParty(idt.Audience, claims, c.OIDC.ClientID, idt.IssuedAt, s.d.Clock.Now()); err != nil {
		return identity{}, err
	}
	if c.OIDC.UserinfoURL != "" {
		info, err := s.userinfo(hctx, c.OIDC.UserinfoURL, tok.AccessToken)
		if err != nil {
			return identity{}, err
		}
		// OpenID Connect Core 5.3.2: userinfo whose sub does not match the
		// ID token's must not be used. One about someone else is refused
		// outright; one naming no subject (non-compliant providers) is
		// ignored, and the ID token's claims stand alone.
		switch sub, _ := info["sub"].(string); {
		case sub != "" && sub == idt.Subject:
			fillFromUserinfo(claims, info)
		case sub != "":
			return identity{}, apierr.New(apierr.OIDCResponseSubjectMismatch)
		}
	}
	id, err := oidcClaimsIdentity(c, idt.Subject, claims)
	if err != nil {
		return id, err
	}
	t := providertokens.FromOAuth2(tok, conf.Scopes)
	id.Tokens = &t
	return id, nil
}

// checkIDTokenParty applies what go-oidc leaves to its caller (OpenID
// Connect Core 3.1.3.7), once the token's signature, issuer, audience
// (clientID among aud) and expiry are verified:
//   - azp, the party the token was issued to: when present it must be
//     clientID, and a token for several audiences must carry it, so a
//     token another client obtained, naming us only as one more audience,
//     does not log in here;
//   - iat may not lie in the future by more than clockSkew, the skew SAML
//     times get. An ID token without iat is accepted: go-oidc accepts it,
//     the API family documents no rule, and exp, which go-oidc requires,
//     still bounds the token's life.
func checkIDTokenParty(aud []string, claims map[string]any, clientID string, iat, now time.Time) error {
	azp, present := claims["azp"]
	switch {
	case present && azp != clientID:
		return apierr.New(apierr.OIDCInvalidIDToken).WithMessage("The ID token was issued to another client (azp).")
	case !present && len(aud) > 1:
		return apierr.New(apierr.OIDCInvalidIDToken).WithMessage(
			"The ID token names several audiences but not the client it was issued to (azp).")
	case iat.After(now.Add(clockSkew)):
		return apierr.New(apierr.OIDCInvalidIDToken).WithMessage("The ID token's issue time (iat) is in the future.")
	}
	return nil
}

// fillFromUserinfo adds to the ID token's claims the userinfo claims it
// lacks, and never replaces one it has. The ID token is signed and bound
// to this login; userinfo is a second answer that providers shape
// differently (Cognito sends email_verified as a string), so letting it
// replace email or email_verified would let it vouch for an address the ID
// token did not, or lift the ID token's email_verified=false.
func fillFromUserinfo(claims, info map[string]any) {
	for k, v := range info {
		if _, ok := claims[k]; !ok {
			claims[k] = v
		}
	}
}

func (s *Service) userinfo(ctx context.Context, url, accessToken string) (map[string]any, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, apierr.Wrap(apierr.SSOIdentityProviderError, err)
	}
	req.Header.Set("Authorization", "Bearer "+accessToken)
	req.Header.Set("Accept", "application/json")
	res, err := s.http.Do(req)
	if err != nil {
		return nil, apierr.Wrap(apierr.SSOIdentityProviderError, err)
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		return nil, apierr.Wrap(apierr.OIDCInvalidUserinfo, fmt.Errorf("userinfo answered %d", res.StatusCode))
	}
	info := map[string]any{}
	if err := json.NewDecoder(res.Body).Decode(&info); err != nil {
		return nil, apierr.Wrap(apierr.OIDCInvalidUserinfo, err)
	}
	return info, nil
}

// oidcClaimsIdentity reads the member's identity from the claims: the
// email from the claim attribute_mapping.email names (default "email"),
// refused when the provider says it is unverified.
func oidcClaimsIdentity(c *conn, subject string, claims map[string]any) (identity, error) {
	claim := func(key, def string) string {
		name, _ := c.OIDC.AttributeMapping[key].(string)
		if name == "" {
			name = def
		}
		v, _ := claims[name].(string)
		return strings.TrimSpace(v)
	}
	id := identity{Kind: KindOIDC, ExternalID: subject, Attributes: claims}
	if !emailaddr.VerifiedClaim(claims) {
		return id, apierr.New(apierr.OIDCResponseUnverifiedEmail)
	}
	if e, err := emailaddr.Normalize(claim("email", "email")); err == nil {
		id.Email = e
	}
	id.Name = claim("name", "name")
	if id.Name == "" {
		id.Name = strings.TrimSpace(claim("first_name", "given_name") + " " + claim("last_name", "family_name"))
	}
	return id, nil
}

func contains(list []string, v string) bool {
	for _, x := range list {
		if x == v {
			return true
		}
	}
	return false
}
