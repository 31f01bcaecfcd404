// Package idp is the identity-provider module: Latchkey as an OAuth 2.1 /
// OpenID Connect provider for a project's connected apps. It mounts the
// connected-app registry and the organization, member and self views of
// connected apps on both API faces.
package idp

import (
	"context"
	"embed"
	"log/slog"
	"net/http"
	"slices"

	"github.com/latchkey/latchkey/internal/clientsecret"
	"github.com/latchkey/latchkey/internal/clock"
	"github.com/latchkey/latchkey/internal/connectedapps"
	"github.com/latchkey/latchkey/internal/flowtoken"
	"github.com/latchkey/latchkey/internal/httpapi"
	"github.com/latchkey/latchkey/internal/m2m"
	"github.com/latchkey/latchkey/internal/organization"
	"github.com/latchkey/latchkey/internal/project"
	"github.com/latchkey/latchkey/internal/ratelimit"
	"github.com/latchkey/latchkey/internal/session"
	"github.com/latchkey/latchkey/internal/store"
)

//go:embed migrations/*.sql
var migrations embed.FS

// Migrations is the module's migration source ("idp/NNNN").
func Migrations() store.Source {
	return store.Embedded("idp", migrations)
}

// Deps are the core services the module uses.
type Deps struct {
	DB       *store.DB
	Clock    clock.Clock
	Log      *slog.Logger
	Apps     *connectedapps.Store
	Orgs     *organization.Store
	Projects *project.Store
	Flows    *flowtoken.Store
	Limiter  *ratelimit.Limiter
	Sessions *session.Service
	// Members resolves SDK callers' sessions for the organization views.
	Members organization.Sessions
	M2M     *m2m.Store
	// Audit records failed client authentications at the token,
	// introspection and revocation endpoints.
	Audit Auditor
	// Policies gives the project's RBAC policy, whose custom scopes the
	// provider offers.
	Policies Policies
	// BaseURL is read per request (the issuer is derived from it).
	BaseURL func() string
}

// Module is the identity provider as the composition root sees it.
type Module struct {
	d Deps
	p *Provider
}

// New builds the module.
func New(d Deps) *Module {
	p := &Provider{db: d.DB, clock: d.Clock, log: d.Log, apps: d.Apps, orgs: d.Orgs, projects: d.Projects,
		flows: d.Flows, limiter: d.Limiter, baseURL: d.BaseURL, m2m: d.M2M, policies: d.Policies, audit: d.Audit}
	if d.Sessions != nil {
		p.cachedOrgs = d.Sessions // not a typed nil in the interface
		p.keySets = d.Sessions
	}
	return &Module{d: d, p: p}
}

// RevokeMember ends a deleted member's connected-app access at once: every
// token of theirs is revoked and their consent deleted, so that reactivating
// the member brings neither back (as it brings back none of their
// sessions). The composition root calls it where a member is deleted; the
// sweeper removes the rows later, and tokens of a member who is not active
// are refused in any case (verifyAccess, issue).
func (m *Module) RevokeMember(ctx context.Context, projectID, memberID string) error {
	return m.p.revokeMember(ctx, projectID, memberID)
}

// ReleaseAddress ends, inside q, a member's connected-app tokens and
// consent when their address changes or they are reactivated
// (organization.AddressHolder): the tokens were granted by whoever held
// the old address, and a full_access one would otherwise keep turning
// into new sessions of the member (exchange_access_token).
func (m *Module) ReleaseAddress(ctx context.Context, q store.Querier, r organization.Released) error {
	return m.p.revokeMemberIn(ctx, q, r.ProjectID, r.MemberID)
}

// EndMemberAccess ends, inside q, a member's connected-app tokens and
// consent when the first proof of their address ended access that had
// come in without one (an organization.MemberAccessEnder): whoever came
// in that way may have granted them as the member. Unlike ReleaseAddress
// nothing else of the address ends: the links and codes sent to it went
// to its owner's own inbox.
func (m *Module) EndMemberAccess(ctx context.Context, q store.Querier, projectID, memberID string) error {
	return m.p.revokeMemberIn(ctx, q, projectID, memberID)
}

// Routes lists every route of the module.
func (m *Module) Routes() []httpapi.Route {
	apps := connectedapps.Handlers{Store: m.d.Apps}
	machines := m2m.Handlers{Store: m.d.M2M}
	org := connectedapps.OrgHandlers{Store: m.d.Apps, Orgs: m.d.Orgs, Sessions: m.d.Members, Tokens: m.p}
	faces := Faces{P: m.p, Sessions: m.d.Sessions, Limiter: m.d.Limiter}
	pub := func(pattern string, h http.HandlerFunc) httpapi.Route { return httpapi.PublicRoute(pattern, h) }
	be, sdk := httpapi.BackendRoute, httpapi.SDKRoute
	const iss = "/v1/public/{project_id}"
	routes := []httpapi.Route{
		// Connected-app registry (backend face only: the project secret).
		be("POST /v1/connected_apps/clients", apps.Create).LogsAdminChange("connected_app_created"),
		be("POST /v1/connected_apps/clients/search", apps.Search),
		be("GET /v1/connected_apps/clients/{client_id}", apps.Get),
		be("PUT /v1/connected_apps/clients/{client_id}", apps.Update).LogsAdminChange("connected_app_updated"),
		be("DELETE /v1/connected_apps/clients/{client_id}", apps.Delete).LogsAdminChange("connected_app_deleted"),
		be("POST /v1/connected_apps/clients/{client_id}/secrets/rotate/start", apps.Rotate(clientsecret.StepStart)),
		be("POST /v1/connected_apps/clients/{client_id}/secrets/rotate", apps.Rotate(clientsecret.StepComplete)),
		be("POST /v1/connected_apps/clients/{client_id}/secrets/rotate/cancel", apps.Rotate(clientsecret.StepCancel)),

		// Machine-to-machine clients (backend face).
		be("POST /v1/m2m/clients", machines.Create).LogsAdminChange("m2m_client_created"),
		be("POST /v1/m2m/clients/search", machines.Search),
		be("GET /v1/m2m/clients/{client_id}", machines.Get),
		be("PUT /v1/m2m/clients/{client_id}", machines.Update).LogsAdminChange("m2m_client_updated"),
		be("DELETE /v1/m2m/clients/{client_id}", machines.Delete).LogsAdminChange("m2m_client_deleted"),
		be("POST /v1/m2m/clients/{client_id}/secrets/rotate/start", machines.Rotate(clientsecret.StepStart)),
		be("POST /v1/m2m/clients/{client_id}/secrets/rotate", machines.Rotate(clientsecret.StepComplete)),
		be("POST /v1/m2m/clients/{client_id}/secrets/rotate/cancel", machines.Rotate(clientsecret.StepCancel)),

		// Organization, member and self views (api-reference 3.11, 3.12, 5.4).
		be("GET /v1/b2b/organizations/{organization_id}/connected_apps", org.BackendOrgApps).ActsForMember(),
		be("GET /v1/b2b/organizations/{organization_id}/connected_apps/{connected_app_id}", org.BackendOrgApp).ActsForMember(),
		be("GET /v1/b2b/organizations/{organization_id}/members/{member_id}/connected_apps", org.BackendMemberApps).ActsForMember(),
		be("POST /v1/b2b/organizations/{organization_id}/members/{member_id}/connected_apps/{connected_app_id}/revoke", org.BackendRevoke).ActsForMember().LogsAdminChange("connected_app_consent_revoked"),
		sdk("GET /sdk/v1/b2b/organizations/connected_apps", org.SDKOrgApps),
		sdk("GET /sdk/v1/b2b/organizations/connected_apps/{connected_app_id}", org.SDKOrgApp),
		sdk("GET /sdk/v1/b2b/organizations/members/connected_apps", org.SDKMemberApps),
		sdk("GET /sdk/v1/b2b/organizations/members/{member_id}/connected_apps", org.SDKMemberApps),
		// The same call as @stytch/vanilla-js 6.3.0 spells it (api-reference §1.4).
		sdk("GET /sdk/v1b2b/organizations/members/{member_id}/connected_apps", org.SDKMemberApps),
		sdk("POST /sdk/v1/b2b/organizations/members/connected_apps/{connected_app_id}/revoke", org.SDKRevoke).LogsAdminChange("connected_app_consent_revoked"),
		sdk("POST /sdk/v1/b2b/organizations/members/{member_id}/connected_apps/{connected_app_id}/revoke", org.SDKRevoke).LogsAdminChange("connected_app_consent_revoked"),

		// Authorization on both faces (api-reference 3.14, 5.4).
		sdk("POST /sdk/v1/idp/b2b/oauth/authorize/start", faces.SDKStart),
		sdk("POST /sdk/v1/idp/b2b/oauth/authorize/submit", faces.SDKSubmit),
		sdk("POST /sdk/v1/b2b/oauth/logout/start", faces.SDKLogoutStart),
		be("POST /v1/b2b/idp/oauth/authorize/start", faces.BackendStart),
		be("POST /v1/b2b/idp/oauth/authorize", faces.BackendAuthorize),

		// A first-party app's full_access token back into a session (both faces).
		sdk("POST /sdk/v1/b2b/sessions/exchange_access_token", faces.ExchangeAccessToken).LogsLogin("access_token_exchange"),
		be("POST /v1/b2b/sessions/exchange_access_token", faces.ExchangeAccessToken).LogsLogin("access_token_exchange"),

		// The OpenID provider's browser pages (issuer {base}/v1/public/{project_id}).
		pub("GET "+iss+"/oauth2/end_session", m.p.EndSession),
		pub("POST "+iss+"/oauth2/end_session", m.p.EndSession),
		pub("GET "+iss+loggedOutPath, m.p.LoggedOut),
	}
	// Its protocol endpoints, which browser clients fetch (openCORS).
	return slices.Concat(routes,
		docCORS.routes(iss+"/.well-known/openid-configuration", m.p.Discovery),
		docCORS.routes(iss+"/.well-known/oauth-authorization-server", m.p.Discovery),
		docCORS.routes("/.well-known/oauth-authorization-server"+iss, m.p.Discovery),
		docCORS.routes("/.well-known/openid-configuration"+iss, m.p.Discovery),
		docCORS.routes(iss+"/.well-known/jwks.json", m.p.JWKS),
		clientCORS.routes(iss+"/oauth2/token", m.p.Token),
		bearerCORS.routes(iss+"/oauth2/userinfo", m.p.UserInfo),
		clientCORS.routes(iss+"/oauth2/introspect", m.p.Introspect),
		clientCORS.routes(iss+"/oauth2/revoke", m.p.Revoke),
	)
}
