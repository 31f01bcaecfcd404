package oauth

import (
	"errors"
	"net/http"
	"time"

	"github.com/latchkey/latchkey/internal/apierr"
	"github.com/latchkey/latchkey/internal/flowtoken"
	"github.com/latchkey/latchkey/internal/httpapi"
	"github.com/latchkey/latchkey/internal/oauth/providers"
	"github.com/latchkey/latchkey/internal/project"
)

// One Tap: Google's script hands the page an ID token directly; the
// submit routes verify it against Google's keys (the configured issuer's
// JWKS, audience our client id) and continue exactly like the callback,
// answering the URL the browser then visits.
//
// A bare ID token is a bearer credential, and Latchkey itself hands Google
// ID tokens back (provider_values), so a submitted token must be one One
// Tap asked for, and is accepted once:
//   - One Tap issues no nonce (the vendor's start answers only the client
//     id), so a token carrying one was minted for a redirect flow's request
//     and is refused: its nonce binds it to that request;
//   - each token is spent on its first submit (flowtoken.Spend), and
//     refused after, until it expires. It is spent by its signed claims
//     (the decoded payload), not by its text: go-jose decodes parts that
//     carry newlines or other unused low bits to the same bytes and
//     verifies them, so one token has many spellings. Those spellings are
//     also refused before verifying (compactjws, in VerifyIDToken); the
//     payload key holds even if a spelling got through, and against a
//     second valid signature of the same claims.

// kindOneTapIDToken marks spent One Tap ID tokens among the flow tickets.
const kindOneTapIDToken flowtoken.Kind = "oauth_onetap_id_token"

// oneTapSkew keeps a spent token's record past its expiry by the clock
// difference replicas may have (the token's expiry is checked against each
// replica's own clock).
const oneTapSkew = 5 * time.Minute

type oneTapStartResponse struct {
	httpapi.Common
	GoogleClientID string `json:"google_client_id"`
}

// handleOneTapStart serves GET b2b/oauth/google/onetap/start.
func (m *Module) handleOneTapStart(r *http.Request) (any, error) {
	c, err := m.LoadConfig(r.Context(), project.CallerFrom(r.Context()).Project.ID, providers.Google)
	if err != nil {
		return nil, err
	}
	return &oneTapStartResponse{GoogleClientID: c.ClientID}, nil
}

type oneTapRequest struct {
	IDToken              string `json:"id_token"`
	OrganizationID       string `json:"organization_id"`
	LoginRedirectURL     string `json:"login_redirect_url"`
	SignupRedirectURL    string `json:"signup_redirect_url"`
	DiscoveryRedirectURL string `json:"discovery_redirect_url"`
	PKCECodeChallenge    string `json:"pkce_code_challenge"`
}

type oneTapResponse struct {
	httpapi.Common
	RedirectURL string `json:"redirect_url"`
}

// handleOneTapSubmit serves POST b2b/oauth/google/onetap/submit.
func (m *Module) handleOneTapSubmit(r *http.Request) (any, error) { return m.oneTap(r, false) }

// handleOneTapDiscoverySubmit serves POST b2b/oauth/google/onetap/discovery/submit.
func (m *Module) handleOneTapDiscoverySubmit(r *http.Request) (any, error) { return m.oneTap(r, true) }

func (m *Module) oneTap(r *http.Request, discovery bool) (any, error) {
	var req oneTapRequest
	if err := httpapi.Decode(r, &req); err != nil {
		return nil, err
	}
	ctx, p := r.Context(), project.CallerFrom(r.Context()).Project
	if err := httpapi.Required("id_token", req.IDToken); err != nil {
		return nil, err
	}
	if err := m.d.Limiter.Allow(ctx, OneTapPerIP, p.ID+"|"+httpapi.ClientIP(r)); err != nil {
		return nil, err
	}
	if err := flowtoken.StartChallenge("pkce_code_challenge", req.PKCECodeChallenge, p.PKCERequiredForOAuth); err != nil {
		return nil, err
	}
	st := state{Provider: providers.Google, Discovery: discovery, Challenge: req.PKCECodeChallenge}
	var err error
	if discovery {
		if st.DiscoveryURL, err = m.d.Projects.ResolveRedirectAs(ctx, p.ID, project.RedirectDiscovery, req.DiscoveryRedirectURL, apierr.NoMatchForOAuthURL); err != nil {
			return nil, err
		}
	} else {
		if err := httpapi.Required("organization_id", req.OrganizationID); err != nil {
			return nil, err
		}
		if _, err := m.d.Orgs.Get(ctx, p.ID, req.OrganizationID); err != nil {
			return nil, apierr.Wrap(apierr.OrganizationNotFound, err)
		}
		st.OrganizationID = req.OrganizationID
		if st.LoginURL, err = m.d.Projects.ResolveRedirectAs(ctx, p.ID, project.RedirectLogin, req.LoginRedirectURL, apierr.NoMatchForOAuthURL); err != nil {
			return nil, err
		}
		if st.SignupURL, err = m.d.Projects.ResolveRedirectAs(ctx, p.ID, project.RedirectSignup, req.SignupRedirectURL, apierr.NoMatchForOAuthURL); err != nil {
			return nil, err
		}
	}
	prov, _, err := m.provider(ctx, p.ID, providers.Google)
	if err != nil {
		return nil, err
	}
	v, ok := prov.(providers.IDTokenVerifier)
	if !ok {
		return nil, apierr.New(apierr.OAuthConfigNotFound)
	}
	id, err := v.VerifyIDToken(ctx, req.IDToken, "")
	switch {
	case errors.Is(err, providers.ErrIDTokenExpired):
		return nil, apierr.Wrap(apierr.IDTokenExpired, err)
	case errors.Is(err, providers.ErrIDTokenAudience):
		return nil, apierr.Wrap(apierr.IDTokenIncorrectAudience, err)
	case err != nil:
		return nil, apierr.Wrap(apierr.IDTokenInvalid, err)
	}
	if id.IDToken == nil {
		return nil, apierr.New(apierr.IDTokenInvalid)
	}
	if id.IDToken.Nonce != "" {
		return nil, apierr.New(apierr.IDTokenNonceInvalid).WithMessage(
			"The ID token carries a nonce, so it was issued for another sign-in request than Google One Tap.")
	}
	// Spent only once verified: what anyone can send must not write rows.
	// Spent by the signed claims, not the token's text (see the top).
	if len(id.IDToken.Payload) == 0 {
		return nil, apierr.New(apierr.IDTokenInvalid)
	}
	if err := m.d.Flows.Spend(ctx, kindOneTapIDToken, p.ID, string(id.IDToken.Payload), id.IDToken.Expiry.Add(oneTapSkew)); err != nil {
		if errors.Is(err, flowtoken.ErrInvalid) {
			return nil, apierr.Wrap(apierr.IDTokenInvalid, err).WithMessage("The ID token was already used.")
		}
		return nil, err
	}
	// One Tap brings no access token (nor refresh token): the login
	// answers these, and the registration keeps the redirect flow's
	// access token, expiry and scopes beside the new ID token
	// (keepTokens).
	id.Tokens = providers.Tokens{IDToken: req.IDToken, Scopes: []string{"openid", "email", "profile"}}
	target, err := m.redirectWithToken(ctx, p, st, id)
	if err != nil {
		return nil, err
	}
	return &oneTapResponse{RedirectURL: target}, nil
}
