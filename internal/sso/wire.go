package sso

import (
	"time"

	"github.com/latchkey/latchkey/internal/httpapi"
	"github.com/latchkey/latchkey/internal/session"
)

// X509Certificate is the wire shape of a certificate of a SAML connection
// (the Node client's X509Certificate).
type X509Certificate struct {
	CertificateID string     `json:"certificate_id"`
	Certificate   string     `json:"certificate"`
	Issuer        string     `json:"issuer"`
	CreatedAt     *time.Time `json:"created_at,omitempty"`
	ExpiresAt     *time.Time `json:"expires_at,omitempty"`
	// UpdatedAt is CreatedAt: a certificate is never changed, only added
	// or deleted. The browser SDK declares it required.
	UpdatedAt *time.Time `json:"updated_at,omitempty"`
}

// EncryptionPrivateKey names an encryption key of a SAML connection. The
// key itself is never sent back: private_key carries its certificate (the
// public half the identity provider encrypts to).
type EncryptionPrivateKey struct {
	PrivateKeyID string     `json:"private_key_id"`
	PrivateKey   string     `json:"private_key"`
	CreatedAt    *time.Time `json:"created_at,omitempty"`
}

// RoleAssignment grants a role to every member who logs in through the
// connection.
type RoleAssignment struct {
	RoleID string `json:"role_id"`
}

// GroupRoleAssignment grants a role to members the identity provider puts
// in a group.
type GroupRoleAssignment struct {
	RoleID string `json:"role_id"`
	Group  string `json:"group"`
}

// SAMLConnection is the wire shape of a SAML connection.
type SAMLConnection struct {
	OrganizationID                        string                 `json:"organization_id"`
	ConnectionID                          string                 `json:"connection_id"`
	Status                                string                 `json:"status"`
	IdPEntityID                           string                 `json:"idp_entity_id"`
	DisplayName                           string                 `json:"display_name"`
	IdPSSOURL                             string                 `json:"idp_sso_url"`
	ACSURL                                string                 `json:"acs_url"`
	AudienceURI                           string                 `json:"audience_uri"`
	SigningCertificates                   []X509Certificate      `json:"signing_certificates"`
	VerificationCertificates              []X509Certificate      `json:"verification_certificates"`
	EncryptionPrivateKeys                 []EncryptionPrivateKey `json:"encryption_private_keys"`
	SAMLConnectionImplicitRoleAssignments []RoleAssignment       `json:"saml_connection_implicit_role_assignments"`
	SAMLGroupImplicitRoleAssignments      []GroupRoleAssignment  `json:"saml_group_implicit_role_assignments"`
	AlternativeAudienceURI                string                 `json:"alternative_audience_uri"`
	IdentityProvider                      string                 `json:"identity_provider"`
	NameIDFormat                          string                 `json:"nameid_format"`
	AlternativeACSURL                     string                 `json:"alternative_acs_url"`
	IdPInitiatedAuthDisabled              bool                   `json:"idp_initiated_auth_disabled"`
	AllowGatewayCallback                  bool                   `json:"allow_gateway_callback"`
	AttributeMapping                      map[string]any         `json:"attribute_mapping"`
}

// OIDCConnection is the wire shape of an OIDC connection. client_secret is
// never sent back: it is "" on every answer.
type OIDCConnection struct {
	OrganizationID   string         `json:"organization_id"`
	ConnectionID     string         `json:"connection_id"`
	Status           string         `json:"status"`
	DisplayName      string         `json:"display_name"`
	RedirectURL      string         `json:"redirect_url"`
	ClientID         string         `json:"client_id"`
	ClientSecret     string         `json:"client_secret"`
	Issuer           string         `json:"issuer"`
	AuthorizationURL string         `json:"authorization_url"`
	TokenURL         string         `json:"token_url"`
	UserinfoURL      string         `json:"userinfo_url"`
	JWKSURL          string         `json:"jwks_url"`
	IdentityProvider string         `json:"identity_provider"`
	CustomScopes     string         `json:"custom_scopes"`
	AttributeMapping map[string]any `json:"attribute_mapping"`
}

// ExternalConnection is the wire shape of an external connection: another
// organization's SAML or OIDC connection used by this organization.
type ExternalConnection struct {
	OrganizationID                            string                `json:"organization_id"`
	ConnectionID                              string                `json:"connection_id"`
	ExternalOrganizationID                    string                `json:"external_organization_id"`
	ExternalConnectionID                      string                `json:"external_connection_id"`
	DisplayName                               string                `json:"display_name"`
	Status                                    string                `json:"status"`
	ExternalConnectionImplicitRoleAssignments []RoleAssignment      `json:"external_connection_implicit_role_assignments"`
	ExternalGroupImplicitRoleAssignments      []GroupRoleAssignment `json:"external_group_implicit_role_assignments"`
}

// ExternalResponse answers the external connection create and update calls.
type ExternalResponse struct {
	httpapi.Common
	Connection *ExternalConnection `json:"connection"`
}

// ConnectionsResponse answers GET b2b/sso.
type ConnectionsResponse struct {
	httpapi.Common
	SAMLConnections     []SAMLConnection     `json:"saml_connections"`
	OIDCConnections     []OIDCConnection     `json:"oidc_connections"`
	ExternalConnections []ExternalConnection `json:"external_connections"`
}

// SAMLResponse answers the SAML create and update calls.
type SAMLResponse struct {
	httpapi.Common
	Connection *SAMLConnection `json:"connection"`
}

// OIDCResponse answers the OIDC create call.
type OIDCResponse struct {
	httpapi.Common
	Connection *OIDCConnection `json:"connection"`
}

// OIDCUpdateResponse answers the OIDC update call; warning says what could
// not be discovered from the issuer, "" when nothing (the browser SDK
// declares it required).
type OIDCUpdateResponse struct {
	httpapi.Common
	Connection *OIDCConnection `json:"connection"`
	Warning    string          `json:"warning"`
}

// DeleteResponse answers a connection delete.
type DeleteResponse struct {
	httpapi.Common
	ConnectionID string `json:"connection_id"`
}

// DeleteCertificateResponse answers a verification certificate delete.
type DeleteCertificateResponse struct {
	httpapi.Common
	CertificateID string `json:"certificate_id"`
}

// DeleteKeyResponse answers an encryption key delete.
type DeleteKeyResponse struct {
	httpapi.Common
	PrivateKeyID string `json:"private_key_id"`
}

// OIDCProviderInfo is one OIDC SSO registration's provider tokens (the
// Node client's OIDCProviderInfo); refresh_token only when asked for.
type OIDCProviderInfo struct {
	ProviderSubject      string   `json:"provider_subject"`
	IDToken              string   `json:"id_token"`
	AccessToken          string   `json:"access_token"`
	AccessTokenExpiresIn int      `json:"access_token_expires_in"`
	Scopes               []string `json:"scopes"`
	ConnectionID         string   `json:"connection_id"`
	RefreshToken         string   `json:"refresh_token,omitempty"`
}

// OIDCProvidersResponse answers the backend's members/{member_id}/oidc_providers.
type OIDCProvidersResponse struct {
	httpapi.Common
	Registrations []OIDCProviderInfo `json:"registrations"`
}

// DiscoveryResponse answers b2b/sso/discovery/connections.
type DiscoveryResponse struct {
	httpapi.Common
	Connections []DiscoveredConnection `json:"connections"`
}

// DiscoveredConnection is an active connection found for an email domain.
type DiscoveredConnection struct {
	ConnectionID     string `json:"connection_id"`
	DisplayName      string `json:"display_name"`
	IdentityProvider string `json:"identity_provider"`
}

// AuthenticateResponse answers b2b/sso/authenticate: the common
// authenticate answer plus reset_session, which the Node client declares:
// true only when the login's assertion was the first proof of the member's
// address and ended access that came in without one, and with it the
// member's other sessions (tokenData.ResetSessions); an SSO login ends
// none otherwise.
type AuthenticateResponse struct {
	*session.AuthResponse
	ResetSession bool `json:"reset_session"`
}

// sdkSAMLConnection is a SAML connection as the browser SDK's answers
// (list, create, update) declare it: the settings it does not declare are
// shadowed by zero-valued omitempty fields, which encoding/json prefers
// over the embedded ones, and the encryption keys go by the SDK's name for
// them.
type sdkSAMLConnection struct {
	SAMLConnection
	AlternativeAudienceURI    string                 `json:"alternative_audience_uri,omitempty"`
	NameIDFormat              string                 `json:"nameid_format,omitempty"`
	AlternativeACSURL         string                 `json:"alternative_acs_url,omitempty"`
	IdPInitiatedAuthDisabled  bool                   `json:"idp_initiated_auth_disabled,omitempty"`
	AllowGatewayCallback      bool                   `json:"allow_gateway_callback,omitempty"`
	EncryptionPrivateKeys     []EncryptionPrivateKey `json:"encryption_private_keys,omitempty"`
	SAMLEncryptionPrivateKeys []EncryptionPrivateKey `json:"saml_encryption_private_keys"`
}

func sdkSAML(c SAMLConnection) sdkSAMLConnection {
	return sdkSAMLConnection{SAMLConnection: c, SAMLEncryptionPrivateKeys: nonNil(c.EncryptionPrivateKeys)}
}

// sdkSAMLResponse answers the SAML create and update calls on the SDK face.
type sdkSAMLResponse struct {
	httpapi.Common
	Connection sdkSAMLConnection `json:"connection"`
}

// sdkConnectionsResponse answers GET b2b/sso on the SDK face.
type sdkConnectionsResponse struct {
	httpapi.Common
	SAMLConnections     []sdkSAMLConnection  `json:"saml_connections"`
	OIDCConnections     []OIDCConnection     `json:"oidc_connections"`
	ExternalConnections []ExternalConnection `json:"external_connections"`
}

func sdkConnections(in *ConnectionsResponse) *sdkConnectionsResponse {
	out := &sdkConnectionsResponse{Common: in.Common, SAMLConnections: []sdkSAMLConnection{},
		OIDCConnections: in.OIDCConnections, ExternalConnections: in.ExternalConnections}
	for _, c := range in.SAMLConnections {
		out.SAMLConnections = append(out.SAMLConnections, sdkSAML(c))
	}
	return out
}
