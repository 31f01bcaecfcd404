package sso

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/coreos/go-oidc/v3/oidc"

	"github.com/latchkey/latchkey/internal/apierr"
	"github.com/latchkey/latchkey/internal/httpapi"
)

type oidcUpdate struct {
	DisplayName      *string        `json:"display_name"`
	ClientID         *string        `json:"client_id"`
	ClientSecret     *string        `json:"client_secret"`
	Issuer           *string        `json:"issuer"`
	AuthorizationURL *string        `json:"authorization_url"`
	TokenURL         *string        `json:"token_url"`
	UserinfoURL      *string        `json:"userinfo_url"`
	JWKSURL          *string        `json:"jwks_url"`
	IdentityProvider *string        `json:"identity_provider"`
	CustomScopes     *string        `json:"custom_scopes"`
	AttributeMapping map[string]any `json:"attribute_mapping"`
}

// UpdateOIDC handles PUT of an OIDC connection. When the issuer is set and
// an endpoint is not, the endpoints and ID token signing algorithms are
// read from the issuer's discovery document; if that fails the update still
// applies and warning says why, as it does when the document lists no
// algorithm this server accepts.
// A connection becomes active once it has an issuer, client credentials
// and the authorization, token and JWKS endpoints.
func (h Handlers) UpdateOIDC(r *http.Request) (any, error) {
	var u oidcUpdate
	if err := httpapi.Decode(r, &u); err != nil {
		return nil, err
	}
	// Authorized before anything else, the discovery fetch included: a
	// caller who may not update the connection makes no outbound request.
	t, err := h.authorizeFetch(r, KindOIDC)
	if err != nil {
		return nil, err
	}
	// Bounded before anything is fetched, the issuer's discovery document
	// included.
	if err := checkOIDCLengths(u); err != nil {
		return nil, err
	}
	if u.Issuer != nil && strings.TrimSpace(*u.Issuer) != "" {
		if err := h.s.checkFetchURL("issuer", strings.TrimSpace(*u.Issuer)); err != nil {
			return nil, err
		}
		if err := checkIssuer(strings.TrimSpace(*u.Issuer)); err != nil {
			return nil, apierr.Invalid("issuer", err.Error()+".")
		}
	}
	var disc *discoveryDoc
	var warning string
	if u.Issuer != nil && strings.TrimSpace(*u.Issuer) != "" && (u.AuthorizationURL == nil || u.TokenURL == nil || u.JWKSURL == nil) {
		if err := h.allowFetch(r.Context(), t); err != nil {
			return nil, err
		}
		// Fetched outside the transaction, as metadata is.
		var err error
		if disc, err = h.s.discover(r.Context(), strings.TrimSpace(*u.Issuer)); err != nil {
			// One text whatever went wrong: the issuer is the caller's
			// choice, and the status, error or issuer an answer gave
			// would tell them what an internal service says. The cause
			// goes to the operator's log.
			h.s.log().Info("sso: oidc discovery failed", "connection_id", t.connID, "err", err)
			warning = warnDiscovery
		}
	}
	c, err := h.changeIn(r.Context(), t, func(ctx context.Context, c *conn) error {
		return h.s.applyOIDC(c, u, disc, h.s.checkFetchURL)
	})
	if err != nil {
		return nil, err
	}
	if disc != nil && len(disc.IDTokenSigningAlgs) > 0 && len(allowedSigningAlgs(disc.IDTokenSigningAlgs)) == 0 {
		warning = warnSigningAlgs
	}
	return &OIDCUpdateResponse{Connection: oidcWire(c, h.s.d.BaseURL()), Warning: warning}, nil
}

// applyOIDC applies u (and the endpoints of disc, already checked by
// discover) to c. check is the rule for the URLs this server fetches
// (token, userinfo, JWKS, the issuer's discovery document); the
// authorization URL is only where browsers are sent.
// The warnings of an OIDC update, one fixed text per kind: they say what
// to fix without repeating anything the fetched document said.
const (
	warnDiscovery = "The issuer's discovery document could not be read, does not name this issuer, " +
		"or names endpoints this server cannot use (https only); set the endpoints explicitly."
	warnSigningAlgs = "The issuer's discovery document lists no ID token signing algorithm this server accepts " +
		"(RS256, RS384, RS512, PS256, PS384, PS512, ES256, ES384, ES512 or EdDSA); " +
		"only ID tokens signed with RS256 will be accepted."
)

func (s *Service) applyOIDC(c *conn, u oidcUpdate, disc *discoveryDoc, check func(field, v string) error) error {
	cfg := c.OIDC
	if err := checkOIDCLengths(u); err != nil {
		return err
	}
	if err := updateDisplayName(&c.DisplayName, u.DisplayName); err != nil {
		return err
	}
	if u.IdentityProvider != nil {
		idp, err := checkIdentityProvider(*u.IdentityProvider)
		if err != nil {
			return err
		}
		c.IdentityProvider = idp
	}
	switch {
	case disc != nil:
		cfg.AuthorizationURL, cfg.TokenURL, cfg.UserinfoURL, cfg.JWKSURL =
			disc.AuthorizationEndpoint, disc.TokenEndpoint, disc.UserinfoEndpoint, disc.JWKSURI
		cfg.SigningAlgs = allowedSigningAlgs(disc.IDTokenSigningAlgs)
	case u.Issuer != nil && strings.TrimSpace(*u.Issuer) != cfg.Issuer:
		// Another issuer, whose document was not read: the previous
		// issuer's algorithms say nothing about it.
		cfg.SigningAlgs = nil
	}
	for _, f := range []struct {
		name    string
		in      *string
		dst     *string
		fetched bool
	}{{"issuer", u.Issuer, &cfg.Issuer, true}, {"authorization_url", u.AuthorizationURL, &cfg.AuthorizationURL, false},
		{"token_url", u.TokenURL, &cfg.TokenURL, true}, {"userinfo_url", u.UserinfoURL, &cfg.UserinfoURL, true},
		{"jwks_url", u.JWKSURL, &cfg.JWKSURL, true}} {
		if f.in == nil {
			continue
		}
		v := strings.TrimSpace(*f.in)
		if f.dst == &cfg.Issuer && disc != nil {
			// The document's own spelling: discovery matched it to the one
			// typed ignoring a trailing slash (discover), but an ID token's
			// iss is compared with the stored issuer exactly (go-oidc), and
			// the provider stamps its tokens with the spelling it publishes.
			v = disc.Issuer
		}
		switch {
		case v == "":
		case f.fetched:
			if err := check(f.name, v); err != nil {
				return err
			}
			if f.dst == &cfg.Issuer {
				if err := checkIssuer(v); err != nil {
					return apierr.Invalid(f.name, err.Error()+".")
				}
			}
		case !isHTTPURL(v):
			return apierr.Invalid(f.name, f.name+" must be an http or https URL.")
		}
		*f.dst = v
	}
	if u.ClientID != nil {
		cfg.ClientID = strings.TrimSpace(*u.ClientID)
	}
	if u.ClientSecret != nil {
		if *u.ClientSecret == "" {
			cfg.ClientSecret = ""
		} else {
			sealed, err := s.seal(c.ID, *u.ClientSecret)
			if err != nil {
				return err
			}
			cfg.ClientSecret = sealed
		}
	}
	if u.CustomScopes != nil {
		cfg.CustomScopes = strings.Join(strings.Fields(*u.CustomScopes), " ")
	}
	if u.AttributeMapping != nil {
		if err := checkAttributeMapping(u.AttributeMapping, "a claim"); err != nil {
			return err
		}
		cfg.AttributeMapping = u.AttributeMapping
	}
	return nil
}

// checkOIDCLengths refuses an update of an OIDC connection setting a text
// over its bound (bounds.go). Values are measured as stored: trimmed, the
// client secret as sent, the scopes joined by single spaces.
func checkOIDCLengths(u oidcUpdate) error {
	if err := checkTrimmed(bounded{"issuer", u.Issuer, MaxURLBytes}, bounded{"authorization_url", u.AuthorizationURL, MaxURLBytes},
		bounded{"token_url", u.TokenURL, MaxURLBytes}, bounded{"userinfo_url", u.UserinfoURL, MaxURLBytes},
		bounded{"jwks_url", u.JWKSURL, MaxURLBytes}, bounded{"client_id", u.ClientID, MaxIDBytes}); err != nil {
		return err
	}
	if u.ClientSecret != nil {
		if err := checkLength("client_secret", *u.ClientSecret, MaxIDBytes); err != nil {
			return err
		}
	}
	if u.CustomScopes != nil {
		if err := checkLength("custom_scopes", strings.Join(strings.Fields(*u.CustomScopes), " "), MaxURLBytes); err != nil {
			return err
		}
	}
	return nil
}

// discoveryDoc is the part of an OpenID provider's configuration used here.
type discoveryDoc struct {
	Issuer                string `json:"issuer"`
	AuthorizationEndpoint string `json:"authorization_endpoint"`
	TokenEndpoint         string `json:"token_endpoint"`
	UserinfoEndpoint      string `json:"userinfo_endpoint"`
	JWKSURI               string `json:"jwks_uri"`
	// IDTokenSigningAlgs is required by OpenID Connect Discovery 1.0
	// section 3; go-oidc, given none, accepts RS256 alone.
	IDTokenSigningAlgs []string `json:"id_token_signing_alg_values_supported"`
}

// asymmetric reports whether alg is one of the ID token signing
// algorithms this server accepts when the issuer lists them: public-key
// signatures, which go-oidc verifies against the issuer's JWKS. Never
// "none", and never HS256/384/512: their key is a shared secret (the
// client secret, or worse, an "oct" key a JWKS publishes, which go-oidc
// would load), so whoever else holds it could sign ID tokens.
func asymmetric(alg string) bool {
	switch alg {
	case oidc.RS256, oidc.RS384, oidc.RS512, oidc.PS256, oidc.PS384, oidc.PS512,
		oidc.ES256, oidc.ES384, oidc.ES512, oidc.EdDSA:
		return true
	}
	return false
}

// allowedSigningAlgs keeps the algorithms of algs this server accepts, in
// the issuer's order, each once.
func allowedSigningAlgs(algs []string) []string {
	var out []string
	for _, a := range algs {
		if asymmetric(a) && !contains(out, a) {
			out = append(out, a)
		}
	}
	return out
}

// signingAlgs are the algorithms an ID token of connection o may be signed
// with: those recorded from the issuer's discovery document (filtered
// again, so nothing stored can widen them), else RS256, the one every
// OpenID provider must support (OpenID Connect Core 1.0 section 15.1).
func signingAlgs(o *oidcConfig) []string {
	if algs := allowedSigningAlgs(o.SigningAlgs); len(algs) > 0 {
		return algs
	}
	return []string{oidc.RS256}
}

// discover reads the issuer's OpenID provider configuration. Its errors
// are for the operator's log only (see UpdateOIDC's warning).
func (s *Service) discover(ctx context.Context, issuer string) (*discoveryDoc, error) {
	if err := checkIssuer(issuer); err != nil {
		return nil, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, strings.TrimRight(issuer, "/")+"/.well-known/openid-configuration", nil)
	if err != nil {
		return nil, err
	}
	res, err := s.http.Do(req)
	if err != nil {
		return nil, err
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("answered %d", res.StatusCode)
	}
	var d discoveryDoc
	if err := json.NewDecoder(res.Body).Decode(&d); err != nil {
		return nil, fmt.Errorf("not JSON: %w", err)
	}
	// OpenID Connect Discovery 1.0 section 4.3: the document's issuer must
	// be the one it was fetched for.
	if strings.TrimRight(d.Issuer, "/") != strings.TrimRight(issuer, "/") {
		return nil, fmt.Errorf("it names issuer %q", d.Issuer)
	}
	if d.AuthorizationEndpoint == "" || d.TokenEndpoint == "" || d.JWKSURI == "" {
		return nil, fmt.Errorf("endpoints missing")
	}
	// Stored as an update naming them would store them (checkOIDCLengths).
	for _, v := range []string{d.Issuer, d.AuthorizationEndpoint, d.TokenEndpoint, d.UserinfoEndpoint, d.JWKSURI} {
		if len(v) > MaxURLBytes {
			return nil, fmt.Errorf("a value of %d bytes, over %d", len(v), MaxURLBytes)
		}
	}
	// The endpoints this server fetches meet the rule the administrator's
	// own would (checkFetchURL): the document is the issuer's word, and
	// the issuer is the administrator's choice.
	if !isHTTPURL(d.AuthorizationEndpoint) {
		return nil, fmt.Errorf("authorization_endpoint %q is not an http(s) URL", d.AuthorizationEndpoint)
	}
	for _, e := range []string{d.TokenEndpoint, d.JWKSURI, d.UserinfoEndpoint} {
		if e == "" {
			continue
		}
		if err := s.d.Fetch.CheckURL(e); err != nil {
			return nil, fmt.Errorf("endpoint %q %v", e, err)
		}
	}
	return &d, nil
}

// checkIssuer refuses an issuer with a query or fragment (OpenID Connect
// Discovery 1.0 section 2 allows neither): appended to, "https://x/a?"
// would fetch /a and not the discovery document.
func checkIssuer(issuer string) error {
	u, err := url.Parse(issuer)
	if err != nil || u.RawQuery != "" || u.ForceQuery || u.Fragment != "" || strings.Contains(issuer, "#") {
		return errors.New("issuer must be a URL without a query or fragment")
	}
	return nil
}
