package password

import (
	"net/http"

	"github.com/latchkey/latchkey/internal/discovery"
	"github.com/latchkey/latchkey/internal/httpapi"
	"github.com/latchkey/latchkey/internal/project"
)

type discoveryAuthRequest struct {
	EmailAddress string `json:"email_address"`
	Password     string `json:"password"`
	CodeVerifier string `json:"code_verifier"` // accepted, nothing to check: see authRequest
}

// DiscoveryAuthenticate handles POST b2b/passwords/discovery/authenticate
// (both faces).
func (h Handlers) DiscoveryAuthenticate(r *http.Request) (any, error) {
	var req discoveryAuthRequest
	if err := httpapi.Decode(r, &req); err != nil {
		return nil, err
	}
	res, err := h.Service.DiscoveryAuthenticate(r.Context(), DiscoveryAuthParams{Project: project.CallerFrom(r.Context()).Project,
		ClientIP: httpapi.ClientIP(r), Email: req.EmailAddress, Password: req.Password})
	if err != nil {
		return nil, err
	}
	return discovery.WithISTAndHint(res), nil
}

type discoveryResetStartRequest struct {
	EmailAddress                   string `json:"email_address"`
	DiscoveryRedirectURL           string `json:"discovery_redirect_url"`
	ResetPasswordRedirectURL       string `json:"reset_password_redirect_url"`
	ResetPasswordExpirationMinutes int    `json:"reset_password_expiration_minutes"`
	ResetPasswordTemplateID        string `json:"reset_password_template_id"`
	VerifyEmailTemplateID          string `json:"verify_email_template_id"`
	Locale                         string `json:"locale"`
	PKCECodeChallenge              string `json:"pkce_code_challenge"`
}

// Unsupported refuses the fields this server cannot honour (httpapi.Decode calls it).
func (req discoveryResetStartRequest) Unsupported() error {
	return httpapi.RefuseUnsupported(httpapi.Set("reset_password_template_id", req.ResetPasswordTemplateID), httpapi.Set("verify_email_template_id", req.VerifyEmailTemplateID), httpapi.Locale("locale", req.Locale))
}

// DiscoveryResetStart handles SDK POST b2b/passwords/discovery/reset/start
// and backend POST /v1/b2b/passwords/discovery/email/reset/start. The
// answer is empty on both faces: there is no member to name.
func (h Handlers) DiscoveryResetStart(r *http.Request) (any, error) {
	var req discoveryResetStartRequest
	if err := httpapi.Decode(r, &req); err != nil {
		return nil, err
	}
	err := h.Service.StartDiscoveryReset(r.Context(), StartParams{Project: project.CallerFrom(r.Context()).Project,
		ClientIP: httpapi.ClientIP(r), Email: req.EmailAddress, ResetRedirectURL: req.ResetPasswordRedirectURL,
		DiscoveryRedirectURL: req.DiscoveryRedirectURL,
		ExpiryMinutes:        req.ResetPasswordExpirationMinutes, CodeChallenge: req.PKCECodeChallenge,
		Locale: httpapi.LocaleTag(req.Locale)})
	if err != nil {
		return nil, err
	}
	return &httpapi.Common{}, nil
}

// DiscoveryReset handles SDK POST b2b/passwords/discovery/reset and
// backend POST /v1/b2b/passwords/discovery/email/reset.
func (h Handlers) DiscoveryReset(r *http.Request) (any, error) {
	var req resetRequest
	if err := httpapi.Decode(r, &req); err != nil {
		return nil, err
	}
	res, err := h.Service.ResetDiscovery(r.Context(), ResetParams{Project: project.CallerFrom(r.Context()).Project,
		ClientIP: httpapi.ClientIP(r), Token: req.PasswordResetToken, Password: req.Password, CodeVerifier: req.PKCECodeVerifier})
	if err != nil {
		return nil, err
	}
	return discovery.WithISTAndHint(res), nil
}
