package sso

import (
	"strings"
	"time"

	"github.com/latchkey/latchkey/internal/store"
)

// storedCert is an X.509 certificate kept on a connection (PEM).
type storedCert struct {
	ID        string `json:"id"`
	PEM       string `json:"pem"`
	Issuer    string `json:"issuer"`
	CreatedAt int64  `json:"created_at"`
	ExpiresAt int64  `json:"expires_at"`
}

// storedKey is a service-provider key pair: the certificate in the clear,
// the private key sealed by the server's secret box.
type storedKey struct {
	storedCert
	SealedKey string `json:"sealed_key"`
}

// samlConfig is a SAML connection's settings.
type samlConfig struct {
	IdPEntityID              string                `json:"idp_entity_id"`
	IdPSSOURL                string                `json:"idp_sso_url"`
	AttributeMapping         map[string]any        `json:"attribute_mapping"`
	VerificationCertificates []storedCert          `json:"verification_certificates"`
	SigningKeys              []storedKey           `json:"signing_keys"`
	EncryptionKeys           []storedKey           `json:"encryption_keys"`
	ConnectionRoles          []RoleAssignment      `json:"connection_roles"`
	GroupRoles               []GroupRoleAssignment `json:"group_roles"`
	AlternativeAudienceURI   string                `json:"alternative_audience_uri"`
	NameIDFormat             string                `json:"nameid_format"`
	AlternativeACSURL        string                `json:"alternative_acs_url"`
	AllowGatewayCallback     bool                  `json:"allow_gateway_callback"`
}

// oidcConfig is an OIDC connection's settings; the client secret is sealed.
type oidcConfig struct {
	Issuer           string         `json:"issuer"`
	ClientID         string         `json:"client_id"`
	ClientSecret     string         `json:"client_secret"`
	AuthorizationURL string         `json:"authorization_url"`
	TokenURL         string         `json:"token_url"`
	UserinfoURL      string         `json:"userinfo_url"`
	JWKSURL          string         `json:"jwks_url"`
	CustomScopes     string         `json:"custom_scopes"`
	AttributeMapping map[string]any `json:"attribute_mapping"`
	// SigningAlgs are the ID token signing algorithms accepted: those of
	// the issuer's discovery document this server allows (signingAlgs);
	// none recorded means RS256 alone.
	SigningAlgs []string `json:"id_token_signing_algs,omitempty"`
}

// externalConfig is an external connection's settings: its source (also
// in the row's source_connection_id) and its own implicit roles.
type externalConfig struct {
	ExternalOrganizationID string                `json:"external_organization_id"`
	ExternalConnectionID   string                `json:"external_connection_id"`
	ConnectionRoles        []RoleAssignment      `json:"connection_roles"`
	GroupRoles             []GroupRoleAssignment `json:"group_roles"`
}

// Endpoints of this server that identity providers are configured with.
// The ACS URL (SAML) and the redirect URL (OIDC) are one callback per
// connection; the SAML entity id (audience) is the connection's metadata
// URL, which also serves the service provider's metadata.
func acsURL(base, connID string) string {
	return strings.TrimRight(base, "/") + "/v1/b2b/sso/callback/" + connID
}

func metadataURL(base, connID string) string {
	return strings.TrimRight(base, "/") + "/v1/b2b/sso/saml/metadata/" + connID
}

func timePtr(ms int64) *time.Time {
	if ms == 0 {
		return nil
	}
	t := store.Time(ms)
	return &t
}

func certWire(c storedCert) X509Certificate {
	return X509Certificate{CertificateID: c.ID, Certificate: c.PEM, Issuer: c.Issuer,
		CreatedAt: timePtr(c.CreatedAt), ExpiresAt: timePtr(c.ExpiresAt), UpdatedAt: timePtr(c.CreatedAt)}
}

// samlWire renders a SAML connection for the API.
func samlWire(c *conn, base string) *SAMLConnection {
	s := c.SAML
	out := &SAMLConnection{OrganizationID: c.OrganizationID, ConnectionID: c.ID, Status: c.Status,
		IdPEntityID: s.IdPEntityID, DisplayName: c.DisplayName, IdPSSOURL: s.IdPSSOURL,
		ACSURL: acsURL(base, c.ID), AudienceURI: metadataURL(base, c.ID),
		SigningCertificates: []X509Certificate{}, VerificationCertificates: []X509Certificate{},
		EncryptionPrivateKeys:                 []EncryptionPrivateKey{},
		SAMLConnectionImplicitRoleAssignments: nonNil(s.ConnectionRoles),
		SAMLGroupImplicitRoleAssignments:      nonNil(s.GroupRoles),
		AlternativeAudienceURI:                s.AlternativeAudienceURI, IdentityProvider: c.IdentityProvider,
		NameIDFormat: s.NameIDFormat, AlternativeACSURL: s.AlternativeACSURL,
		// Only SP-initiated logins are accepted (README: SSO).
		IdPInitiatedAuthDisabled: true, AllowGatewayCallback: s.AllowGatewayCallback,
		AttributeMapping: nonNilMap(s.AttributeMapping)}
	for _, k := range s.SigningKeys {
		out.SigningCertificates = append(out.SigningCertificates, certWire(k.storedCert))
	}
	for _, v := range s.VerificationCertificates {
		out.VerificationCertificates = append(out.VerificationCertificates, certWire(v))
	}
	for _, k := range s.EncryptionKeys {
		out.EncryptionPrivateKeys = append(out.EncryptionPrivateKeys, EncryptionPrivateKey{PrivateKeyID: k.ID,
			PrivateKey: k.PEM, CreatedAt: timePtr(k.CreatedAt)})
	}
	return out
}

// oidcWire renders an OIDC connection for the API (never its secret).
func oidcWire(c *conn, base string) *OIDCConnection {
	o := c.OIDC
	return &OIDCConnection{OrganizationID: c.OrganizationID, ConnectionID: c.ID, Status: c.Status,
		DisplayName: c.DisplayName, RedirectURL: acsURL(base, c.ID), ClientID: o.ClientID, Issuer: o.Issuer,
		AuthorizationURL: o.AuthorizationURL, TokenURL: o.TokenURL, UserinfoURL: o.UserinfoURL, JWKSURL: o.JWKSURL,
		IdentityProvider: c.IdentityProvider, CustomScopes: o.CustomScopes, AttributeMapping: nonNilMap(o.AttributeMapping)}
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

func nonNilMap(m map[string]any) map[string]any {
	if m == nil {
		return map[string]any{}
	}
	return m
}
