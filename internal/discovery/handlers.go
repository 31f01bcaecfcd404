package discovery

import (
	"net/http"

	"github.com/latchkey/latchkey/internal/apierr"
	"github.com/latchkey/latchkey/internal/httpapi"
	"github.com/latchkey/latchkey/internal/organization"
	"github.com/latchkey/latchkey/internal/project"
	"github.com/latchkey/latchkey/internal/session"
)

// Handlers serves the discovery routes; both faces share them. On the SDK
// face the session comes from Basic auth, on the backend face from the body.
type Handlers struct{ Service *Service }

type request struct {
	EmailAddress             string `json:"email_address"`
	DiscoveryRedirectURL     string `json:"discovery_redirect_url"`
	DiscoveryExpiration      int    `json:"discovery_expiration_minutes"`
	PKCECodeChallenge        string `json:"pkce_code_challenge"`
	PKCECodeVerifier         string `json:"pkce_code_verifier"`
	DiscoveryMagicLinksToken string `json:"discovery_magic_links_token"`
	Code                     string `json:"code"`
	IntermediateSession      string `json:"intermediate_session_token"`
	OrganizationID           string `json:"organization_id"`
	SessionDurationMinutes   *int   `json:"session_duration_minutes"`
	SessionToken             string `json:"session_token"`
	SessionJWT               string `json:"session_jwt"`
	LoginTemplateID          string `json:"login_template_id"`
	httpapi.RequestLocale
	// The routes that start a session take it (backend face only); the
	// others ignore it, as they ignore every field they do not read.
	session.ClaimsField
}

// Unsupported refuses the fields this server cannot honour (httpapi.Decode
// calls it): custom templates and other languages are refused rather than
// silently ignored. It stands for the embedded RequestLocale's, which
// checks the language alone.
func (req request) Unsupported() error {
	return httpapi.RefuseUnsupported(httpapi.Set("login_template_id", req.LoginTemplateID), httpapi.Locale("locale", req.Locale))
}

func decode(r *http.Request) (request, *project.Project, error) {
	var req request
	err := httpapi.Decode(r, &req)
	return req, project.CallerFrom(r.Context()).Project, err
}

// nonEmpty counts the values that are set.
func nonEmpty(vs ...string) int {
	n := 0
	for _, v := range vs {
		if v != "" {
			n++
		}
	}
	return n
}

func credential(r *http.Request, req request) session.Credential {
	if tok := project.CallerFrom(r.Context()).SessionToken; tok != "" {
		return session.Credential{Token: tok}
	}
	return session.Credential{Token: req.SessionToken, JWT: req.SessionJWT}
}

// SendLink handles POST b2b/magic_links/email/discovery/send.
func (h Handlers) SendLink(r *http.Request) (any, error) {
	req, p, err := decode(r)
	if err != nil {
		return nil, err
	}
	err = h.Service.SendLink(r.Context(), LinkParams{Project: p, ClientIP: httpapi.ClientIP(r),
		Email: req.EmailAddress, RedirectURL: req.DiscoveryRedirectURL, ExpirationMinutes: req.DiscoveryExpiration, PKCECodeChallenge: req.PKCECodeChallenge,
		Locale: req.Tag()})
	if err != nil {
		return nil, err
	}
	return &httpapi.Common{}, nil
}

// AuthenticateLink handles POST b2b/magic_links/discovery/authenticate.
func (h Handlers) AuthenticateLink(r *http.Request) (any, error) {
	req, p, err := decode(r)
	if err != nil {
		return nil, err
	}
	res, err := h.Service.AuthenticateLink(r.Context(), p, httpapi.ClientIP(r), req.DiscoveryMagicLinksToken, req.PKCECodeVerifier)
	if err != nil {
		return nil, err
	}
	return authenticated{res}, nil
}

// SendCode handles POST b2b/otps/email/discovery/send.
func (h Handlers) SendCode(r *http.Request) (any, error) {
	req, p, err := decode(r)
	if err != nil {
		return nil, err
	}
	if err := h.Service.SendCode(r.Context(), p, httpapi.ClientIP(r), req.EmailAddress, req.DiscoveryExpiration,
		req.Tag()); err != nil {
		return nil, err
	}
	return &httpapi.Common{}, nil
}

// AuthenticateCode handles POST b2b/otps/email/discovery/authenticate.
func (h Handlers) AuthenticateCode(r *http.Request) (any, error) {
	req, p, err := decode(r)
	if err != nil {
		return nil, err
	}
	res, err := h.Service.AuthenticateCode(r.Context(), p, httpapi.ClientIP(r), req.EmailAddress, req.Code)
	if err != nil {
		return nil, err
	}
	return authenticated{res}, nil
}

// Organizations handles POST b2b/discovery/organizations.
func (h Handlers) Organizations(r *http.Request) (any, error) {
	req, p, err := decode(r)
	if err != nil {
		return nil, err
	}
	// The body names the caller once: an IST, a session token or a session
	// JWT (the SDK face's own session comes from its credentials, not the
	// body, and is not counted).
	if n := nonEmpty(req.IntermediateSession, req.SessionToken, req.SessionJWT); n > 1 {
		return nil, apierr.New(apierr.TooManySessionArguments)
	}
	c := credential(r, req)
	res, err := h.Service.List(r.Context(), p, Who{IST: req.IntermediateSession, SessionToken: c.Token, SessionJWT: c.JWT,
		ClientIP: httpapi.ClientIP(r)})
	if err != nil {
		return nil, err
	}
	return listed{res}, nil
}

// Create handles POST b2b/discovery/organizations/create.
func (h Handlers) Create(r *http.Request) (any, error) {
	var body struct {
		request
		organization.Settings
	}
	if err := httpapi.Decode(r, &body); err != nil {
		return nil, err
	}
	claims, err := body.Claims(r)
	if err != nil {
		return nil, err
	}
	caller := project.CallerFrom(r.Context())
	set := body.Settings
	if !caller.Backend {
		// A browser holds only the public token: trusted_metadata and the
		// external id are the customer's backend's to write. Dropped, not
		// refused, as the SDK's organization update (UpdateMe) drops them;
		// the browser SDK's create options name neither.
		set = set.ForMembers()
	}
	// B2BDiscoveryOrganizationsCreateResponse, like the two exchanges'
	// types, declares the intermediate fields but no organization_id.
	return session.Declaring(session.DeclaresIntermediate | session.DeclaresPrimaryRequired)(h.Service.Create(r.Context(), CreateParams{Project: caller.Project, ClientIP: httpapi.ClientIP(r),
		IST: body.IntermediateSession, DurationMinutes: body.SessionDurationMinutes, Settings: set,
		CustomClaims: claims}))
}

// Exchange handles POST b2b/discovery/intermediate_sessions/exchange.
func (h Handlers) Exchange(r *http.Request) (any, error) {
	req, p, err := decode(r)
	if err != nil {
		return nil, err
	}
	// Named before the caller is looked at: a missing field spends no IST
	// and runs no session check (which would count a failure).
	if err := httpapi.Required("organization_id", req.OrganizationID); err != nil {
		return nil, err
	}
	claims, err := req.Claims(r)
	if err != nil {
		return nil, err
	}
	return session.Declaring(session.DeclaresIntermediate | session.DeclaresPrimaryRequired)(h.Service.Exchange(req.In(r.Context()), ExchangeParams{Project: p, ClientIP: httpapi.ClientIP(r),
		IST: req.IntermediateSession, OrganizationID: req.OrganizationID, DurationMinutes: req.SessionDurationMinutes,
		CustomClaims: claims}))
}

// SessionExchange handles POST b2b/sessions/exchange.
func (h Handlers) SessionExchange(r *http.Request) (any, error) {
	req, p, err := decode(r)
	if err != nil {
		return nil, err
	}
	// Named before the caller is looked at: a missing field spends no IST
	// and runs no session check (which would count a failure).
	if err := httpapi.Required("organization_id", req.OrganizationID); err != nil {
		return nil, err
	}
	claims, err := req.Claims(r)
	if err != nil {
		return nil, err
	}
	return session.Declaring(session.DeclaresIntermediate | session.DeclaresPrimaryRequired)(h.Service.SessionExchange(req.In(r.Context()),
		SessionExchangeParams{Project: p, Credential: credential(r, req), ClientIP: httpapi.ClientIP(r),
			OrganizationID: req.OrganizationID, DurationMinutes: req.SessionDurationMinutes, CustomClaims: claims}))
}
