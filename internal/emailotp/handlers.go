package emailotp

import (
	"net/http"

	"github.com/latchkey/latchkey/internal/httpapi"
	"github.com/latchkey/latchkey/internal/organization"
	"github.com/latchkey/latchkey/internal/project"
	"github.com/latchkey/latchkey/internal/session"
)

// Product is the SDK product gating these routes.
const Product = "emailOtp"

// Handlers serves the email OTP routes of both faces.
type Handlers struct{ Service *Service }

// LoginOrSignup handles POST b2b/otps/email/login_or_signup.
func (h Handlers) LoginOrSignup(r *http.Request) (any, error) {
	var req organization.LoginSendRequest
	if err := httpapi.Decode(r, &req); err != nil {
		return nil, err
	}
	res, err := h.Service.LoginOrSignup(r.Context(), SendParams{Project: project.CallerFrom(r.Context()).Project,
		ClientIP: httpapi.ClientIP(r), Email: req.EmailAddress, OrganizationID: req.OrganizationID,
		ExpiryMinutes: req.LoginExpirationMinutes, SignupExpiryMinutes: req.SignupExpirationMinutes,
		Locale: httpapi.LocaleTag(req.Locale)})
	if err != nil {
		return nil, err
	}
	return res.Response(), nil
}

type authRequest struct {
	Code                   string `json:"code"`
	EmailAddress           string `json:"email_address"`
	OrganizationID         string `json:"organization_id"`
	SessionDurationMinutes *int   `json:"session_duration_minutes"`
	IntermediateSession    string `json:"intermediate_session_token"`
	session.Held
	session.ClaimsField
	httpapi.RequestLocale
}

// Authenticate handles POST b2b/otps/email/authenticate.
func (h Handlers) Authenticate(r *http.Request) (any, error) {
	var req authRequest
	if err := httpapi.Decode(r, &req); err != nil {
		return nil, err
	}
	claims, err := req.Claims(r)
	if err != nil {
		return nil, err
	}
	res, err := h.Service.Authenticate(req.In(r.Context()), AuthParams{Project: project.CallerFrom(r.Context()).Project,
		ClientIP: httpapi.ClientIP(r), Code: req.Code, Email: req.EmailAddress, OrganizationID: req.OrganizationID,
		DurationMinutes: req.SessionDurationMinutes, IntermediateSessionToken: req.IntermediateSession, Session: req.Held,
		CustomClaims: claims})
	if err != nil {
		return nil, err
	}
	return session.WithMethodID{AuthResponse: res}, nil
}
