// Package sso is enterprise single sign-on for organizations: SAML 2.0 and
// OpenID Connect connections, and external connections (another
// organization's connection used by this one, external.go), administered
// on both API faces, and the login they give members.
//
// A login is browser round trip and then an API call:
//
//  1. GET /v1/public/sso/start names a connection (and the customer page's
//     redirect URLs and PKCE challenge). The state of the login goes into a
//     single-use ticket (SAML RelayState, OIDC state) and the browser goes
//     to the identity provider.
//  2. The provider comes back to the connection's callback
//     (/v1/b2b/sso/callback/{connection_id}): a SAML response posted to the
//     ACS, or an OIDC authorization code. Everything the provider says is
//     verified here; the member is found or provisioned just in time, and
//     the browser goes to the customer's page with stytch_token_type=sso
//     and a single-use token.
//  3. b2b/sso/authenticate redeems that token (with the PKCE verifier when
//     the start had a challenge) through the session completion seam, so
//     organization auth policy and MFA apply as for every method.
//
// SAML is verified with gosaml2, and everything gosaml2 leaves to its
// caller is done here: its warnings are failures, InResponseTo must answer
// the request this server sent, and assertion ids are remembered in the
// database so a response cannot be replayed on any replica.
package sso

import (
	"embed"
	"log/slog"
	"net/http"

	"github.com/latchkey/latchkey/internal/clock"
	"github.com/latchkey/latchkey/internal/flowtoken"
	"github.com/latchkey/latchkey/internal/httpapi"
	"github.com/latchkey/latchkey/internal/organization"
	"github.com/latchkey/latchkey/internal/outbound"
	"github.com/latchkey/latchkey/internal/project"
	"github.com/latchkey/latchkey/internal/ratelimit"
	"github.com/latchkey/latchkey/internal/secretbox"
	"github.com/latchkey/latchkey/internal/session"
	"github.com/latchkey/latchkey/internal/store"
)

// Product is the SDK product gating the SDK login routes.
const Product = "sso"

// Deps are the services the module uses.
type Deps struct {
	DB       *store.DB
	Clock    clock.Clock
	Projects *project.Store
	Resolver *project.Resolver
	Orgs     *organization.Store
	Sessions *session.Service
	// Members resolves SDK callers' sessions (the admin routes act for the
	// logged-in member).
	Members organization.Sessions
	Flows   *flowtoken.Store
	Limiter *ratelimit.Limiter
	// Box seals private keys and client secrets; nil when the server has no
	// encryption key, and then connections cannot be configured.
	Box *secretbox.Box
	// BaseURL is this server's public URL, read per request.
	BaseURL func() string
	// Fetch guards every request to a URL a connection names (metadata,
	// discovery, token, userinfo, JWKS): an organization's administrator
	// chooses those URLs, and anyone can become one (package outbound).
	// Nil permits public addresses only.
	Fetch *outbound.Guard
	Log   *slog.Logger
	// RSAKeys makes the service-provider keys generated for SAML
	// connections; nil generates fresh RSA-2048 keys (tests pass a
	// pre-generated pool, see project.KeySource).
	RSAKeys project.KeySource
}

// Service runs SSO.
type Service struct {
	d    Deps
	http *http.Client // d.Fetch's client
	keys keySets
}

// New returns the SSO service.
func New(d Deps) *Service {
	if d.Fetch == nil {
		d.Fetch = outbound.New(nil)
	}
	return &Service{d: d, http: d.Fetch.Client()}
}

//go:embed migrations/*.sql
var migrationFiles embed.FS

// Migrations are the module's own tables.
func Migrations() store.Source {
	return store.Embedded("sso", migrationFiles)
}

// Routes is the module's route table.
func (s *Service) Routes() []httpapi.Route {
	sdk, backend := Handlers{s: s, sdk: true}, Handlers{s: s}
	return []httpapi.Route{
		// Browser round trip.
		{Face: httpapi.Public, Pattern: "GET /v1/public/sso/start", Raw: http.HandlerFunc(s.serveStart)},
		{Face: httpapi.Public, Pattern: "POST /v1/b2b/sso/callback/{connection_id}", Raw: http.HandlerFunc(s.serveCallback)},
		{Face: httpapi.Public, Pattern: "GET /v1/b2b/sso/callback/{connection_id}", Raw: http.HandlerFunc(s.serveCallback)},
		{Face: httpapi.Public, Pattern: "GET /v1/b2b/sso/saml/metadata/{connection_id}", Raw: http.HandlerFunc(s.serveMetadata)},

		// SDK face: login, discovery and the logged-in admin's connections.
		{Face: httpapi.SDK, Pattern: "POST /sdk/v1/b2b/sso/authenticate", Handler: sdk.Authenticate, Product: Product, Audit: httpapi.Audit{Login: "sso"}},
		{Face: httpapi.SDK, Pattern: "GET /sdk/v1/b2b/sso/discovery/connections", Handler: sdk.DiscoverConnections, Product: Product},
		{Face: httpapi.SDK, Pattern: "GET /sdk/v1/b2b/sso", Handler: sdk.List},
		{Face: httpapi.SDK, Pattern: "DELETE /sdk/v1/b2b/sso/{connection_id}", Handler: sdk.Delete, Audit: httpapi.Audit{Admin: "sso_connection_deleted"}},
		{Face: httpapi.SDK, Pattern: "POST /sdk/v1/b2b/sso/saml", Handler: sdk.CreateSAML, Audit: httpapi.Audit{Admin: "sso_connection_created"}},
		{Face: httpapi.SDK, Pattern: "PUT /sdk/v1/b2b/sso/saml/{connection_id}", Handler: sdk.UpdateSAML, Audit: httpapi.Audit{Admin: "sso_connection_updated"}},
		{Face: httpapi.SDK, Pattern: "PUT /sdk/v1/b2b/sso/saml/{connection_id}/url", Handler: sdk.UpdateSAMLByURL, Audit: httpapi.Audit{Admin: "sso_connection_updated"}},
		{Face: httpapi.SDK, Pattern: "DELETE /sdk/v1/b2b/sso/saml/{connection_id}/verification_certificates/{certificate_id}", Handler: sdk.DeleteCertificate, Audit: httpapi.Audit{Admin: "sso_certificate_deleted"}},
		{Face: httpapi.SDK, Pattern: "DELETE /sdk/v1/b2b/sso/saml/{connection_id}/encryption_private_key/{private_key_id}", Handler: sdk.DeleteEncryptionKey, Audit: httpapi.Audit{Admin: "sso_encryption_key_deleted"}},
		{Face: httpapi.SDK, Pattern: "POST /sdk/v1/b2b/sso/oidc", Handler: sdk.CreateOIDC, Audit: httpapi.Audit{Admin: "sso_connection_created"}},
		{Face: httpapi.SDK, Pattern: "PUT /sdk/v1/b2b/sso/oidc/{connection_id}", Handler: sdk.UpdateOIDC, Audit: httpapi.Audit{Admin: "sso_connection_updated"}},
		{Face: httpapi.SDK, Pattern: "POST /sdk/v1/b2b/sso/external", Handler: sdk.CreateExternal, Audit: httpapi.Audit{Admin: "sso_connection_created"}},
		{Face: httpapi.SDK, Pattern: "PUT /sdk/v1/b2b/sso/external/{connection_id}", Handler: sdk.UpdateExternal, Audit: httpapi.Audit{Admin: "sso_connection_updated"}},

		// Backend face. Connection administration acts for a member session
		// header (organization.CallerOf) as the Node client sends it.
		{Face: httpapi.Backend, Pattern: "POST /v1/b2b/sso/authenticate", Handler: backend.Authenticate, Audit: httpapi.Audit{Login: "sso"}},
		{Face: httpapi.Backend, Pattern: "GET /v1/b2b/sso/{organization_id}", Handler: backend.List, ForMember: true},
		{Face: httpapi.Backend, Pattern: "DELETE /v1/b2b/sso/{organization_id}/connections/{connection_id}", Handler: backend.Delete, ForMember: true, Audit: httpapi.Audit{Admin: "sso_connection_deleted"}},
		{Face: httpapi.Backend, Pattern: "POST /v1/b2b/sso/saml/{organization_id}", Handler: backend.CreateSAML, ForMember: true, Audit: httpapi.Audit{Admin: "sso_connection_created"}},
		{Face: httpapi.Backend, Pattern: "PUT /v1/b2b/sso/saml/{organization_id}/connections/{connection_id}", Handler: backend.UpdateSAML, ForMember: true, Audit: httpapi.Audit{Admin: "sso_connection_updated"}},
		{Face: httpapi.Backend, Pattern: "PUT /v1/b2b/sso/saml/{organization_id}/connections/{connection_id}/url", Handler: backend.UpdateSAMLByURL, ForMember: true, Audit: httpapi.Audit{Admin: "sso_connection_updated"}},
		{Face: httpapi.Backend, Pattern: "DELETE /v1/b2b/sso/saml/{organization_id}/connections/{connection_id}/verification_certificates/{certificate_id}", Handler: backend.DeleteCertificate, ForMember: true, Audit: httpapi.Audit{Admin: "sso_certificate_deleted"}},
		{Face: httpapi.Backend, Pattern: "DELETE /v1/b2b/sso/saml/{organization_id}/connections/{connection_id}/encryption_private_keys/{private_key_id}", Handler: backend.DeleteEncryptionKey, ForMember: true, Audit: httpapi.Audit{Admin: "sso_encryption_key_deleted"}},
		{Face: httpapi.Backend, Pattern: "POST /v1/b2b/sso/oidc/{organization_id}", Handler: backend.CreateOIDC, ForMember: true, Audit: httpapi.Audit{Admin: "sso_connection_created"}},
		{Face: httpapi.Backend, Pattern: "PUT /v1/b2b/sso/oidc/{organization_id}/connections/{connection_id}", Handler: backend.UpdateOIDC, ForMember: true, Audit: httpapi.Audit{Admin: "sso_connection_updated"}},
		{Face: httpapi.Backend, Pattern: "POST /v1/b2b/sso/external/{organization_id}", Handler: backend.CreateExternal, ForMember: true, Audit: httpapi.Audit{Admin: "sso_connection_created"}},
		{Face: httpapi.Backend, Pattern: "PUT /v1/b2b/sso/external/{organization_id}/connections/{connection_id}", Handler: backend.UpdateExternal, ForMember: true, Audit: httpapi.Audit{Admin: "sso_connection_updated"}},
		{Face: httpapi.Backend, Pattern: "GET /v1/b2b/organizations/{organization_id}/members/{member_id}/oidc_providers", Handler: backend.OIDCProviders},
	}
}
