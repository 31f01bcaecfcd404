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
}

// serveStart handles GET /v1/public/sso/start: it checks the connection,
// the redirect URLs and PKCE, remembers the login in a state ticket and
// sends the browser to the identity provider.
func (s *Service) serveStart(w http.ResponseWriter, r *http.Request) {
	target, err := s.start(r.Context(), r)
	if err != nil {
		s.errorPage(w, r, err)
		return
	}
	http.Redirect(w, r, target, http.StatusFound)
}

func (s *Service) start(ctx context.Context, r *http.Request) (string, error) {
	q := r.URL.Query()
	token := q.Get("public_token")
	if token == "" {
		return "", apierr.New(apierr.PublicTokenRequired)
	}
	p, err := s.d.Resolver.ByPublicToken(ctx, token)
	if errors.Is(err, store.ErrNotFound) {
		return "", apierr.Wrap(apierr.PublicTokenNotFound, err)
	}
	if err != nil {
		return "", err
	}
	if q.Get("connection_id") == "" {
		return "", apierr.Invalid("connection_id", "connection_id is required.")
	}
	c, err := s.loadAny(ctx, p.ID, q.Get("connection_id"))
	if err != nil {
		return "", err
	}
	if c.Status != StatusActive {
		return "", apierr.New(apierr.SSOConnectionNotActive)
	}
	// An external connection runs its source's identity provider flow; the
	// login lands in the external connection's organization (loginTarget).
	src, st := c, flowState{ConnectionID: c.ID, OrganizationID: c.OrganizationID}
	if c.Kind == KindExternal {
		if src, err = s.activeSource(ctx, c); err != nil {
			return "", err
		}
		st.ConnectionID, st.ExternalConnectionID = src.ID, c.ID
	}
	challenge := q.Get("pkce_code_challenge")
	if err := flowtoken.StartChallenge("pkce_code_challenge", challenge, p.PKCERequiredForSSO); err != nil {
		return "", err
	}
	st.Challenge = challenge
	if st.LoginURL, err = s.d.Projects.ResolveRedirectAs(ctx, p.ID, project.RedirectLogin, q.Get("login_redirect_url"), apierr.NoMatchForSSOURL); err != nil {
		return "", err
	}
	if st.SignupURL, err = s.d.Projects.ResolveRedirectAs(ctx, p.ID, project.RedirectSignup, q.Get("signup_redirect_url"), apierr.NoMatchForSSOURL); err != nil {
		return "", err
	}
	params := providerParams(q)
	base := s.d.BaseURL()
	issue := func(st flowState) (string, error) {
		return s.d.Flows.Issue(ctx, flowtoken.Issue{Kind: kindState, ProjectID: p.ID, TTL: stateTTL,
			LimitKey: p.ID + "|" + httpapi.ClientIP(r), Data: st})
	}
	if src.Kind == KindSAML {
		return s.samlStart(src, base, st, issue)
	}
	return s.oidcStart(ctx, src, base, st, params, issue)
}

// samlStart builds the AuthnRequest (HTTP-Redirect binding), remembering
// its ID for InResponseTo.
func (s *Service) samlStart(c *conn, base string, st flowState, issue func(flowState) (string, error)) (string, error) {
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
	relay, err := issue(st)
	if err != nil {
		return "", err
	}
	return sp.BuildAuthURLRedirect(relay, doc)
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
