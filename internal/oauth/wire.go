package oauth

import (
	"net/http"

	"github.com/latchkey/latchkey/internal/discovery"
	"github.com/latchkey/latchkey/internal/httpapi"
	"github.com/latchkey/latchkey/internal/oauth/providers"
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
	// No custom claims: a browser does not choose its own (session.ClaimsField).
	res, err := m.Authenticate(r.Context(), project.CallerFrom(r.Context()).Project, httpapi.ClientIP(r), req, nil)
	if err != nil {
		return nil, err
	}
	return &SDKAuthResponse{AuthResponse: res.AuthResponse, ProviderValues: res.ProviderValues}, nil
}

type sdkAuthAnswer struct {
	*session.SDKAuthResponse
	ProviderValues ProviderValues `json:"provider_values"`
}

// SDKWire implements httpapi.SDKWirer: the login answer in its SDK form
// (organization/wire.go, session/wire.go) with provider_values.
func (r *SDKAuthResponse) SDKWire() any {
	return &sdkAuthAnswer{SDKAuthResponse: r.AuthResponse.SDK(), ProviderValues: r.ProviderValues}
}

// DiscoveryResponse is b2b/oauth/discovery/authenticate on the backend
// face: the discovery answer with the provider fields the Node client
// declares (B2BOAuthDiscoveryAuthenticateResponse). The browser SDK
// declares the discovery answer alone (B2BDiscoveryAuthenticateResponse),
// which is the SDK face's.
type DiscoveryResponse struct {
	*discovery.Response
	ProviderType string `json:"provider_type"`
	// ProviderTenantID is set only when the provider named exactly one
	// tenant; ProviderTenantIDs lists them all.
	ProviderTenantID  string   `json:"provider_tenant_id"`
	ProviderTenantIDs []string `json:"provider_tenant_ids"`
	FullName          string   `json:"full_name"`
}

// SDKWire implements httpapi.SDKWirer.
func (r *DiscoveryResponse) SDKWire() any { return r.Response.SDKWire() }

func discoveryAnswer(res *discovery.Response, id *providers.Identity) *DiscoveryResponse {
	out := &DiscoveryResponse{Response: res, ProviderType: id.Provider, ProviderTenantIDs: []string{}, FullName: id.Name}
	for _, t := range id.Tenants {
		out.ProviderTenantIDs = append(out.ProviderTenantIDs, t.ID)
	}
	if len(out.ProviderTenantIDs) == 1 {
		out.ProviderTenantID = out.ProviderTenantIDs[0]
	}
	return out
}

// BackendWire implements httpapi.BackendWirer:
// B2BOAuthAuthenticateResponse declares no method_id (the registration id
// the login set there is the session factor's id), so the backend answer
// leaves it out.
func (r *AuthResponse) BackendWire() any {
	inner := *r.AuthResponse
	inner.MethodID = ""
	out := *r
	out.AuthResponse = &inner
	return &out
}

// backendDiscoveryResponse is DiscoveryResponse without
// organization_id_hint, which B2BOAuthDiscoveryAuthenticateResponse does
// not declare.
type backendDiscoveryResponse struct {
	httpapi.Common
	IntermediateSessionToken string                             `json:"intermediate_session_token"`
	EmailAddress             string                             `json:"email_address"`
	DiscoveredOrganizations  []discovery.DiscoveredOrganization `json:"discovered_organizations"`
	ProviderType             string                             `json:"provider_type"`
	ProviderTenantID         string                             `json:"provider_tenant_id"`
	ProviderTenantIDs        []string                           `json:"provider_tenant_ids"`
	FullName                 string                             `json:"full_name"`
}

// BackendWire implements httpapi.BackendWirer.
func (r *DiscoveryResponse) BackendWire() any {
	return &backendDiscoveryResponse{IntermediateSessionToken: r.IntermediateSessionToken, EmailAddress: r.EmailAddress,
		DiscoveredOrganizations: r.DiscoveredOrganizations, ProviderType: r.ProviderType,
		ProviderTenantID: r.ProviderTenantID, ProviderTenantIDs: r.ProviderTenantIDs, FullName: r.FullName}
}
