package sso

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"time"

	"github.com/latchkey/latchkey/internal/apierr"
	"github.com/latchkey/latchkey/internal/flowtoken"
	"github.com/latchkey/latchkey/internal/httpapi"
	"github.com/latchkey/latchkey/internal/ids"
	"github.com/latchkey/latchkey/internal/project"
	"github.com/latchkey/latchkey/internal/store"
)

// Ticket kinds: the state carried through the identity provider (SAML
// RelayState, OIDC state) and the token handed to the customer's page.
const (
	kindState flowtoken.Kind = "sso_state"
	kindToken flowtoken.Kind = "sso_token"
)

// Lifetimes: a person may take a while at their identity provider; the
// customer's page redeems the token at once.
const (
	stateTTL = 15 * time.Minute
	tokenTTL = 10 * time.Minute
)

// flowState is what a login remembers between start and callback.
// ConnectionID is the connection whose identity provider runs the login
// (and whose callback it comes back to); ExternalConnectionID, when the
// login started at an external connection, is where it lands, in
// OrganizationID.
type flowState struct {
	ConnectionID         string `json:"connection_id"`
	ExternalConnectionID string `json:"external_connection_id,omitempty"`
	OrganizationID       string `json:"organization_id"`
	LoginURL             string `json:"login_url"`
	SignupURL            string `json:"signup_url"`
	// Challenge is the customer page's PKCE challenge, moved onto the token.
	Challenge string `json:"challenge,omitempty"`
	// SAMLRequestID is the AuthnRequest's ID, which the response must name
	// in InResponseTo.
	SAMLRequestID string `json:"saml_request_id,omitempty"`
	// OIDC: the nonce the ID token must carry and the PKCE verifier of this
	// server's own code exchange with the provider.
	Nonce    string `json:"nonce,omitempty"`
	Verifier string `json:"verifier,omitempty"`
	// Binding is the hash of the random value the start put in the
	// starting browser's binding cookie (Service.binding); the callback
	// takes the state only with that cookie. "" for a login that is not
	// bound (samlBound).
	Binding string `json:"binding,omitempty"`
}

// The state binding (flowtoken.Binding), as OAuth's: without it, an
// attacker starts a login for his own account, gets his identity
// provider's answer (an OIDC callback URL with code and state, a SAML
// response form with its RelayState) and makes a victim's browser deliver
// it (a link, an auto-submitting form); the victim's browser goes to the
// customer's page with an SSO token for the attacker's account, and the
// application logs the victim in as him. So the start sets a cookie in the
// browser it answers, whose hash the state keeps, and the callback refuses
// a state whose browser does not hold it.
//
// The cookie is HttpOnly, Secure when the base URL is https, and scoped to
// the callbacks' common path (/v1/b2b/sso/callback/ under the base URL): a
// login that starts at an external connection comes back to its source's
// callback. Its SameSite depends on how the identity provider comes back:
//   - OIDC by a top-level GET redirect (the code in the query; the client
//     never asks for another response_mode, oidcStart), which carries a
//     SameSite=Lax cookie: bound on http and https alike;
//   - SAML by a POST from the identity provider's page, usually cross-site,
//     which carries only a SameSite=None cookie, and browsers accept that
//     only with Secure, that is on an https base URL: there the login is
//     bound. On an http base URL a remote identity provider's post would
//     never carry the cookie, so there a SAML login is not bound (the state
//     keeps no binding and the callback asks for none); a project that sets
//     pkce_required_for_sso binds every login to the customer page's
//     verifier all the same. Dev mode's own IdP (/dev/saml) is unaffected.
//
// One browser has one SSO binding at a time: a second start replaces the
// first's, whose callback is then refused.
const bindingCookie = "latchkey_sso_state"

// serveStart handles GET /v1/public/sso/start: it checks the connection,
// the redirect URLs and PKCE, remembers the login in a state ticket and
// sends the browser to the identity provider.
//
// A start served under another host name than the base URL's goes there
// first (flowtoken.ToCallbackHost), so that the binding cookie is set on
// the host of the callback.
func (s *Service) serveStart(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Cache-Control", "no-store")
	if there, ok := flowtoken.ToCallbackHost(s.d.BaseURL(), r); ok {
		http.Redirect(w, r, there, http.StatusFound)
		return
	}
	target, cookie, err := s.start(r.Context(), r)
	if err != nil {
		s.errorPage(w, r, err)
		return
	}
	if cookie != nil {
		http.SetCookie(w, cookie)
	}
	http.Redirect(w, r, target, http.StatusFound)
}

// binding is the state binding's cookie for a login through a connection
// of kind (KindSAML or KindOIDC), under the current base URL.
func (s *Service) binding(kind string) flowtoken.Binding {
	base := s.d.BaseURL()
	b := flowtoken.Binding{Name: bindingCookie, Path: flowtoken.PathOf(acsURL(base, "")), Secure: httpapi.HTTPSBase(base),
		SameSite: http.SameSiteLaxMode, TTL: stateTTL}
	if kind == KindSAML && b.Secure {
		b.SameSite = http.SameSiteNoneMode
	}
	return b
}

// start checks a start and issues its state ticket; it returns the
// identity provider's URL and the binding cookie to set (nil for a login
// that is not bound).
func (s *Service) start(ctx context.Context, r *http.Request) (string, *http.Cookie, error) {
	q := r.URL.Query()
	token := q.Get("public_token")
	if token == "" {
		return "", nil, apierr.New(apierr.PublicTokenRequired)
	}
	p, err := s.d.Resolver.ByPublicToken(ctx, token)
	if errors.Is(err, store.ErrNotFound) {
		return "", nil, apierr.Wrap(apierr.PublicTokenNotFound, err)
	}
	if err != nil {
		return "", nil, err
	}
	if q.Get("connection_id") == "" {
		return "", nil, apierr.Invalid("connection_id", "connection_id is required.")
	}
	c, err := s.loadAny(ctx, p.ID, q.Get("connection_id"))
	if err != nil {
		return "", nil, err
	}
	if c.Status != StatusActive {
		return "", nil, apierr.New(apierr.SSOConnectionNotActive)
	}
	// An external connection runs its source's identity provider flow; the
	// login lands in the external connection's organization (loginTarget).
	src, st := c, flowState{ConnectionID: c.ID, OrganizationID: c.OrganizationID}
	if c.Kind == KindExternal {
		if src, err = s.activeSource(ctx, c); err != nil {
			return "", nil, err
		}
		st.ConnectionID, st.ExternalConnectionID = src.ID, c.ID
	}
	challenge := q.Get("pkce_code_challenge")
	if err := flowtoken.StartChallenge("pkce_code_challenge", challenge, p.PKCERequiredForSSO); err != nil {
		return "", nil, err
	}
	st.Challenge = challenge
	if st.LoginURL, err = s.d.Projects.ResolveRedirectAs(ctx, p.ID, project.RedirectLogin, q.Get("login_redirect_url"), apierr.NoMatchForSSOURL); err != nil {
		return "", nil, err
	}
	if st.SignupURL, err = s.d.Projects.ResolveRedirectAs(ctx, p.ID, project.RedirectSignup, q.Get("signup_redirect_url"), apierr.NoMatchForSSOURL); err != nil {
		return "", nil, err
	}
	params := providerParams(q)
	base := s.d.BaseURL()
	// issue issues the state ticket, bound to this browser when bound
	// (see bindingCookie).
	var cookie *http.Cookie
	issue := func(st flowState, bound bool) (string, error) {
		if bound {
			cookie, st.Binding = s.binding(src.Kind).NewBinding()
		}
		return s.d.Flows.Issue(ctx, flowtoken.Issue{Kind: kindState, ProjectID: p.ID, TTL: stateTTL,
			LimitKey: p.ID + "|" + httpapi.ClientIP(r), Data: st})
	}
	var target string
	if src.Kind == KindSAML {
		target, err = s.samlStart(src, base, st, issue)
	} else {
		target, err = s.oidcStart(ctx, src, base, st, params, issue)
	}
	if err != nil {
		return "", nil, err
	}
	return target, cookie, nil
}

// samlStart builds the AuthnRequest (HTTP-Redirect binding), remembering
// its ID for InResponseTo.
func (s *Service) samlStart(c *conn, base string, st flowState, issue func(flowState, bool) (string, error)) (string, error) {
	sp, err := s.serviceProvider(c, base, s.d.Clock.Now(), 0)
	if err != nil {
		return "", err
	}
	// alternative_acs_url, when set, is the AssertionConsumerServiceURL the
	// request names (the API family's zero-downtime migration: the identity
	// provider keeps posting to the old URL, which the customer proxies
	// here); verifySAML accepts it beside this server's own.
	if alt := c.SAML.AlternativeACSURL; alt != "" {
		sp.AssertionConsumerServiceURL = alt
	}
	doc, err := sp.BuildAuthRequestDocumentNoSig()
	if err != nil {
		return "", err
	}
	st.SAMLRequestID = doc.Root().SelectAttrValue("ID", "")
	if st.SAMLRequestID == "" {
		return "", errors.New("sso: AuthnRequest without ID")
	}
	relay, err := issue(st, samlBound(base, sp.AssertionConsumerServiceURL, acsURL(base, c.ID)))
	if err != nil {
		return "", err
	}
	return sp.BuildAuthURLRedirect(relay, doc)
}

// samlBound reports whether a SAML login whose AuthnRequest names acs is
// bound to its browser (see bindingCookie): on an https base URL, where
// the binding cookie can be SameSite=None, and when acs is this server's
// own ACS URL (own). An alternative_acs_url is another address (the
// customer's proxy, usually on another host) that the cookie, set on the
// base URL's host and the callbacks' path, does not reach: logins that
// post there are not bound, as on an http base URL.
func samlBound(base, acs, own string) bool {
	return httpapi.HTTPSBase(base) && acs == own
}

// providerParams are the start's provider_{key} parameters, passed to the
// identity provider as {key} (OIDC only; e.g. provider_prompt=login).
func providerParams(q map[string][]string) map[string]string {
	out := map[string]string{}
	for k, v := range q {
		if key, ok := strings.CutPrefix(k, "provider_"); ok && key != "" && len(v) > 0 {
			out[key] = v[0]
		}
	}
	return out
}

// newNonce is an OIDC nonce.
func newNonce() string { return ids.Token() }
