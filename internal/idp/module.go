// Package idp is the identity-provider module: Latchkey as an OAuth 2.1 /
// OpenID Connect provider for a project's connected apps. It mounts the
// connected-app registry and the organization, member and self views of
// connected apps on both API faces.
package idp

import (
	"embed"
	"io/fs"

	"github.com/latchkey/latchkey/internal/connectedapps"
	"github.com/latchkey/latchkey/internal/httpapi"
	"github.com/latchkey/latchkey/internal/organization"
	"github.com/latchkey/latchkey/internal/store"
)

//go:embed migrations/*.sql
var migrations embed.FS

// Migrations is the module's migration source ("idp/NNNN").
func Migrations() store.Source {
	sub, err := fs.Sub(migrations, "migrations")
	if err != nil {
		panic(err) // the embedded directory always exists
	}
	return store.Source{Name: "idp", FS: sub}
}

// Deps are the core services the module uses.
type Deps struct {
	DB       *store.DB
	Apps     *connectedapps.Store
	Orgs     *organization.Store
	Sessions organization.Sessions
}

// Module is the identity provider as the composition root sees it.
type Module struct {
	d Deps
}

// New builds the module.
func New(d Deps) *Module { return &Module{d: d} }

// Routes lists every route of the module.
func (m *Module) Routes() []httpapi.Route {
	apps := connectedapps.Handlers{Store: m.d.Apps}
	org := connectedapps.OrgHandlers{Store: m.d.Apps, Orgs: m.d.Orgs, Sessions: m.d.Sessions}
	be := func(pattern string, h httpapi.HandlerFunc) httpapi.Route {
		return httpapi.Route{Face: httpapi.Backend, Pattern: pattern, Handler: h}
	}
	sdk := func(pattern string, h httpapi.HandlerFunc) httpapi.Route {
		return httpapi.Route{Face: httpapi.SDK, Pattern: pattern, Handler: h}
	}
	return []httpapi.Route{
		// Connected-app registry (backend face only: the project secret).
		be("POST /v1/connected_apps/clients", apps.Create),
		be("POST /v1/connected_apps/clients/search", apps.Search),
		be("GET /v1/connected_apps/clients/{client_id}", apps.Get),
		be("PUT /v1/connected_apps/clients/{client_id}", apps.Update),
		be("DELETE /v1/connected_apps/clients/{client_id}", apps.Delete),
		be("POST /v1/connected_apps/clients/{client_id}/secrets/rotate/start", apps.Rotate(connectedapps.RotateStart)),
		be("POST /v1/connected_apps/clients/{client_id}/secrets/rotate", apps.Rotate(connectedapps.RotateComplete)),
		be("POST /v1/connected_apps/clients/{client_id}/secrets/rotate/cancel", apps.Rotate(connectedapps.RotateCancel)),

		// Organization, member and self views (api-reference 3.11, 3.12, 5.4).
		be("GET /v1/b2b/organizations/{organization_id}/connected_apps", org.BackendOrgApps),
		be("GET /v1/b2b/organizations/{organization_id}/connected_apps/{connected_app_id}", org.BackendOrgApp),
		be("GET /v1/b2b/organizations/{organization_id}/members/{member_id}/connected_apps", org.BackendMemberApps),
		be("POST /v1/b2b/organizations/{organization_id}/members/{member_id}/connected_apps/{connected_app_id}/revoke", org.BackendRevoke),
		sdk("GET /sdk/v1/b2b/organizations/connected_apps", org.SDKOrgApps),
		sdk("GET /sdk/v1/b2b/organizations/connected_apps/{connected_app_id}", org.SDKOrgApp),
		sdk("GET /sdk/v1/b2b/organizations/members/connected_apps", org.SDKMemberApps),
		sdk("GET /sdk/v1/b2b/organizations/members/{member_id}/connected_apps", org.SDKMemberApps),
		sdk("POST /sdk/v1/b2b/organizations/members/connected_apps/{connected_app_id}/revoke", org.SDKRevoke),
		sdk("POST /sdk/v1/b2b/organizations/members/{member_id}/connected_apps/{connected_app_id}/revoke", org.SDKRevoke),
	}
}
