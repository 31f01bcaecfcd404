// Package scim is SCIM 2.0 provisioning (RFC 7643, 7644): an
// organization's identity provider (Okta, Microsoft Entra...) creates,
// updates and deactivates the organization's members, and pushes groups
// whose membership grants roles (scim_group_implicit_role_assignments).
//
// It has two halves:
//
//   - connection management on both API faces (connection.go, admin.go):
//     an organization has at most one SCIM connection, whose bearer token
//     is shown once, stored as a SHA-256 hash and rotated in three steps;
//   - the SCIM service at the connection's base_url
//     (/v1/b2b/scim/{connection_id}), authenticated by that connection's
//     bearer token only (auth.go), answering in SCIM's own JSON
//     (protocol.go): Users (users.go, patch.go) and Groups (groups.go),
//     listed through RFC 7644 filters (filter_parse.go parses them,
//     filter.go and filter_attrs.go write their SQL) and sorting (sort.go).
//
// Members are created, updated and deleted through the organization
// store's own paths, so every side effect of the member routes (sessions
// ended, retired addresses, cached answers dropped) happens for SCIM too.
package scim

import (
	"embed"

	"github.com/latchkey/latchkey/internal/audit"
	"github.com/latchkey/latchkey/internal/changefeed"
	"github.com/latchkey/latchkey/internal/clock"
	"github.com/latchkey/latchkey/internal/httpapi"
	"github.com/latchkey/latchkey/internal/organization"
	"github.com/latchkey/latchkey/internal/project"
	"github.com/latchkey/latchkey/internal/ratelimit"
	"github.com/latchkey/latchkey/internal/store"
)

// Deps are the services the module uses.
type Deps struct {
	DB       *store.DB
	Clock    clock.Clock
	Projects *project.Store
	Orgs     *organization.Store
	// Members resolves SDK callers' sessions and ends a deprovisioned
	// member's sessions.
	Members organization.Sessions
	Limiter *ratelimit.Limiter
	Audit   *audit.Log
	// BaseURL is this server's public URL, read per request.
	BaseURL func() string
}

// Service runs SCIM.
type Service struct{ d Deps }

// New returns the SCIM service.
func New(d Deps) *Service { return &Service{d: d} }

//go:embed migrations/*.sql
var migrationFiles embed.FS

// Migrations are the module's own tables.
func Migrations() store.Source { return store.Embedded("scim", migrationFiles) }

// Watches are the module's tables whose changes must reach cached members
// and sessions (see app.moduleWatches): a connection's group role
// assignments and its groups (organization scope), and a member's group
// memberships and registration, which give their roles and their
// scim_registration (member scope).
func Watches() []changefeed.Watch {
	return []changefeed.Watch{
		{Table: "scim_connections", KeyColumn: "organization_id", Scope: changefeed.Organization},
		{Table: "scim_groups", KeyColumn: "organization_id", Scope: changefeed.Organization},
		{Table: "scim_group_members", KeyColumn: "member_id", Scope: changefeed.Member},
		{Table: "scim_registrations", KeyColumn: "member_id", Scope: changefeed.Member},
	}
}

// Routes is the module's route table.
func (s *Service) Routes() []httpapi.Route {
	sdk, backend := admin{s: s, sdk: true}, admin{s: s}
	scim := func(pattern string, h scimHandler) httpapi.Route {
		return httpapi.PublicRoute(pattern, s.serve(h))
	}
	const base = "/v1/b2b/scim/{connection_id}"
	return []httpapi.Route{
		// SDK face: the logged-in member's organization's connection.
		httpapi.SDKRoute("POST /sdk/v1/b2b/scim", sdk.Create).LogsAdminChange("scim_connection_created"),
		httpapi.SDKRoute("GET /sdk/v1/b2b/scim", sdk.Get),
		httpapi.SDKRoute("PUT /sdk/v1/b2b/scim/{connection_id}", sdk.Update).LogsAdminChange("scim_connection_updated"),
		httpapi.SDKRoute("DELETE /sdk/v1/b2b/scim/{connection_id}", sdk.Delete).LogsAdminChange("scim_connection_deleted"),
		httpapi.SDKRoute("POST /sdk/v1/b2b/scim/groups", sdk.Groups),
		httpapi.SDKRoute("POST /sdk/v1/b2b/scim/rotate/start", sdk.RotateStart),
		httpapi.SDKRoute("POST /sdk/v1/b2b/scim/rotate/complete", sdk.RotateComplete),
		httpapi.SDKRoute("POST /sdk/v1/b2b/scim/rotate/cancel", sdk.RotateCancel),

		// Backend face.
		httpapi.BackendRoute("POST /v1/b2b/scim/{organization_id}/connection", backend.Create).ActsForMember().LogsAdminChange("scim_connection_created"),
		httpapi.BackendRoute("GET /v1/b2b/scim/{organization_id}/connection", backend.Get).ActsForMember(),
		httpapi.BackendRoute("PUT /v1/b2b/scim/{organization_id}/connection/{connection_id}", backend.Update).ActsForMember().LogsAdminChange("scim_connection_updated"),
		httpapi.BackendRoute("DELETE /v1/b2b/scim/{organization_id}/connection/{connection_id}", backend.Delete).ActsForMember().LogsAdminChange("scim_connection_deleted"),
		httpapi.BackendRoute("GET /v1/b2b/scim/{organization_id}/connection/{connection_id}", backend.Groups).ActsForMember(),
		httpapi.BackendRoute("POST /v1/b2b/scim/{organization_id}/connection/{connection_id}/rotate/start", backend.RotateStart).ActsForMember(),
		httpapi.BackendRoute("POST /v1/b2b/scim/{organization_id}/connection/{connection_id}/rotate/complete", backend.RotateComplete).ActsForMember(),
		httpapi.BackendRoute("POST /v1/b2b/scim/{organization_id}/connection/{connection_id}/rotate/cancel", backend.RotateCancel).ActsForMember(),

		// The SCIM service, for the identity provider.
		scim("GET "+base+"/ServiceProviderConfig", s.serviceProviderConfig),
		scim("GET "+base+"/ResourceTypes", s.resourceTypes),
		scim("GET "+base+"/Schemas", s.schemas),
		scim("GET "+base+"/Schemas/{id}", s.schema),
		scim("POST "+base+"/Users", s.createUser),
		scim("GET "+base+"/Users", s.listUsers),
		scim("GET "+base+"/Users/{id}", s.getUser),
		scim("PUT "+base+"/Users/{id}", s.replaceUser),
		scim("PATCH "+base+"/Users/{id}", s.patchUser),
		scim("DELETE "+base+"/Users/{id}", s.deleteUser),
		scim("POST "+base+"/Groups", s.createGroup),
		scim("GET "+base+"/Groups", s.listGroups),
		scim("GET "+base+"/Groups/{id}", s.getGroup),
		scim("PUT "+base+"/Groups/{id}", s.replaceGroup),
		scim("PATCH "+base+"/Groups/{id}", s.patchGroup),
		scim("DELETE "+base+"/Groups/{id}", s.deleteGroup),
		// Not offered, so 501 (RFC 7644 3.12; 3.11 for /Me): Bulk, which is
		// optional and which ServiceProviderConfig says is unsupported, and
		// the /Me alias, which names the authenticated user while the
		// bearer token is the connection's, not a user's.
		scim("POST "+base+"/Bulk", notImplemented("Bulk operations are not supported.")),
		scim("GET "+base+"/Me", notImplemented(meUnsupported)),
		scim("POST "+base+"/Me", notImplemented(meUnsupported)),
		scim("PUT "+base+"/Me", notImplemented(meUnsupported)),
		scim("PATCH "+base+"/Me", notImplemented(meUnsupported)),
		scim("DELETE "+base+"/Me", notImplemented(meUnsupported)),

		// Every error on the service's paths is SCIM's, those the edge
		// answers before a handler runs (a body over the limit, a path or
		// method no route serves) too; the backend face's connection
		// routes share the prefix and keep the catalogue's.
		httpapi.ErrorShapeRoute(base+"/{path...}", writeAPIError),
		httpapi.ErrorShapeRoute("/v1/b2b/scim/{organization_id}/connection", httpapi.CatalogueShape),
		httpapi.ErrorShapeRoute("/v1/b2b/scim/{organization_id}/connection/{path...}", httpapi.CatalogueShape),
	}
}
