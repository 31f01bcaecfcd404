package oauth

import (
	"net/http"

	"github.com/latchkey/latchkey/internal/httpapi"
	"github.com/latchkey/latchkey/internal/project"
	"github.com/latchkey/latchkey/internal/session"
)

// SDKAuthResponse is b2b/oauth/authenticate on the SDK face: what the
// browser SDK declares (B2BOAuthAuthenticateResponse), which has
// provider_values but not the backend's provider_subject, provider_type
// and reset_sessions.
type SDKAuthResponse struct {
	*session.AuthResponse
	ProviderValues ProviderValues `json:"provider_values"`
}

// handleSDKAuthenticate serves POST /sdk/v1/b2b/oauth/authenticate.
func (m *Module) handleSDKAuthenticate(r *http.Request) (any, error) {
	var req authRequest
	if err := httpapi.Decode(r, &req); err != nil {
		return nil, err
	}
	res, err := m.Authenticate(r.Context(), project.CallerFrom(r.Context()).Project, httpapi.ClientIP(r), req)
	if err != nil {
		return nil, err
	}
	return &SDKAuthResponse{AuthResponse: res.AuthResponse, ProviderValues: res.ProviderValues}, nil
}
