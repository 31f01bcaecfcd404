package magiclink

import (
	"net/http"

	"github.com/latchkey/latchkey/internal/httpapi"
	"github.com/latchkey/latchkey/internal/organization"
	"github.com/latchkey/latchkey/internal/project"
	"github.com/latchkey/latchkey/internal/session"
)

// Handlers serves the magic-link routes; both faces share them, the SDK
// face additionally requiring the product to be enabled. Sessions resolves
// the logged-in member behind SDK invites.
type Handlers struct {
	Service  *Service
	Sessions organization.Sessions
}

// sendRequest is login_or_signup's request: the fields of every
// login_or_signup send, the redirect URLs and the PKCE challenge.
type sendRequest struct {
	organization.LoginSendRequest
	LoginRedirectURL  string `json:"login_redirect_url"`
	SignupRedirectURL string `json:"signup_redirect_url"`
	PKCECodeChallenge string `json:"pkce_code_challenge"`
}

// Product is the SDK product gating these routes.
const Product = "emailMagicLinks"

// LoginOrSignup handles POST b2b/magic_links/email/login_or_signup.
func (h Handlers) LoginOrSignup(r *http.Request) (any, error) {
	var req sendRequest
	if err := httpapi.Decode(r, &req); err != nil {
		return nil, err
	}
	res, err := h.Service.LoginOrSignup(r.Context(), SendParams{
		Project: project.CallerFrom(r.Context()).Project, ClientIP: httpapi.ClientIP(r), Email: req.EmailAddress,
		OrganizationID: req.OrganizationID, LoginRedirectURL: req.LoginRedirectURL, SignupRedirectURL: req.SignupRedirectURL,
		LoginExpiration: req.LoginExpirationMinutes, SignupExpiration: req.SignupExpirationMinutes,
		PKCECodeChallenge: req.PKCECodeChallenge, Locale: httpapi.LocaleTag(req.Locale),
	})
	if err != nil {
		return nil, err
	}
	return res.Response(), nil
}

type authRequest struct {
	MagicLinksToken        string `json:"magic_links_token"`
	SessionDurationMinutes *int   `json:"session_duration_minutes"`
	PKCECodeVerifier       string `json:"pkce_code_verifier"`
	IntermediateSession    string `json:"intermediate_session_token"`
	session.Held
	session.ClaimsField
	httpapi.RequestLocale
}

// Authenticate handles POST b2b/magic_links/authenticate.
func (h Handlers) Authenticate(r *http.Request) (any, error) {
	var req authRequest
	if err := httpapi.Decode(r, &req); err != nil {
		return nil, err
	}
	claims, err := req.Claims(r)
	if err != nil {
		return nil, err
	}
	res, err := h.Service.Authenticate(req.In(r.Context()), AuthParams{
		Project: project.CallerFrom(r.Context()).Project, ClientIP: httpapi.ClientIP(r), Token: req.MagicLinksToken,
		DurationMinutes: req.SessionDurationMinutes, PKCECodeVerifier: req.PKCECodeVerifier,
		IntermediateSessionToken: req.IntermediateSession, Session: req.Held, CustomClaims: claims,
	})
	if err != nil {
		return nil, err
	}
	return res, nil
}

// AuthResponse is the magic-link authenticate answer: the common one plus
// reset_sessions, which the API family declares for this method. It is
// true when the redemption ended the member's other sessions: always for
// an email-update link, and for a login link only when its first proof of
// the address ended access that came in without one (an OAuth account
// admitted with an address its provider had not verified, see
// oauth.AddressVerified).
type AuthResponse struct {
	*session.AuthResponse
	ResetSessions bool `json:"reset_sessions"`
}
