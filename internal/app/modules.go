package app

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/latchkey/latchkey/internal/adminportal"
	"github.com/latchkey/latchkey/internal/atrest"
	"github.com/latchkey/latchkey/internal/changefeed"
	"github.com/latchkey/latchkey/internal/connectedapps"
	"github.com/latchkey/latchkey/internal/devmode"
	"github.com/latchkey/latchkey/internal/httpapi"
	"github.com/latchkey/latchkey/internal/idp"
	"github.com/latchkey/latchkey/internal/impersonation"
	"github.com/latchkey/latchkey/internal/m2m"
	"github.com/latchkey/latchkey/internal/mfa"
	"github.com/latchkey/latchkey/internal/oauth"
	"github.com/latchkey/latchkey/internal/organization"
	"github.com/latchkey/latchkey/internal/project"
	"github.com/latchkey/latchkey/internal/rbac"
	"github.com/latchkey/latchkey/internal/scim"
	"github.com/latchkey/latchkey/internal/sso"
	"github.com/latchkey/latchkey/internal/store"
	"github.com/latchkey/latchkey/internal/trustedauth"
)

// Module is a feature package (an auth method, RBAC, the identity
// provider...) as the root sees it: a route table. The first-round
// methods' handlers are built in Handler, the later modules in
// wireModules; a module's migrations are listed in Migrations and its
// watched tables in moduleWatches, so adding one is its own package plus a
// line in each of those functions.
type Module interface {
	Routes() []httpapi.Route
}

// Migrations lists every module's own migrations, applied after the core
// ones by App.New, `latchkey migrate` and the test harness.
func Migrations() []store.Source {
	return []store.Source{oauth.Migrations(), rbac.Migrations(), idp.Migrations(), sso.Migrations(), trustedauth.Migrations(),
		impersonation.Migrations(), scim.Migrations()}
}

// SealedColumns lists every column holding a secret sealed at rest with
// App.Box (package atrest). Start-up and `latchkey migrate` encrypt any
// plaintext left in them, so a module that stores such a secret adds its
// column here.
func SealedColumns() []atrest.Column {
	return []atrest.Column{project.SigningKeyColumn, mfa.TOTPSecretColumn, mfa.RecoveryCodeColumn, oauth.ClientSecretColumn, oauth.TokensColumn,
		sso.SecretColumn, sso.TokensColumn}
}

// migrateSecrets moves secrets that earlier versions of the modules sealed
// in their own way into their SealedColumns, resealed for their rows, so
// start-up leaves every secret under one mechanism (package atrest).
func (a *App) migrateSecrets(ctx context.Context) error {
	for _, m := range []struct {
		name string
		run  func(context.Context) (int, error)
	}{{"oauth", a.OAuth.MigrateSecrets}, {"sso", a.SSO.MigrateSecrets}} {
		n, err := m.run(ctx)
		if err != nil {
			return fmt.Errorf("app: migrate %s secrets: %w", m.name, err)
		}
		if n > 0 {
			a.Log.Info("resealed secrets for their rows", "module", m.name, "count", n)
		}
	}
	return nil
}

// moduleWatches lists the modules' watched tables (see coreWatches):
// every module table whose change must alter a cached session, member,
// organization or project answer (member roles, custom roles, a role
// policy, SSO connections...), each with the scope of what it changes.
// A module exports them as a function beside its migrations, e.g.
// `rbac.Watches()`, and adds it here.
func moduleWatches() []changefeed.Watch {
	return slices.Concat(rbac.Watches(), oauth.Watches(), sso.Watches(), scim.Watches())
}

// wireModules builds the modules on the core services. It runs at the end
// of NewWithDB, so every core service is available.
func (a *App) wireModules() error {
	a.OAuth = oauth.New(oauth.Deps{DB: a.DB, Clock: a.Clock, Projects: a.Projects, Resolver: a.Resolver, Orgs: a.Orgs,
		Sessions: a.Sessions, Discovery: a.discovery, Limiter: a.Limiter, Flows: a.Flows, Box: a.Box, Audit: a.Audit,
		BaseURL: func() string { return a.Config.BaseURL }})
	a.RBAC = rbac.New(rbac.Deps{DB: a.DB, Clock: a.Clock, Orgs: a.Orgs})
	a.TrustedAuth = trustedauth.New(trustedauth.Deps{DB: a.DB, Clock: a.Clock, Orgs: a.Orgs, Sessions: a.Sessions, Limiter: a.Limiter})
	members := memberSessions{sessions: a.Sessions}
	a.Orgs.UseRBAC(a.RBAC)
	a.SSO = sso.New(sso.Deps{DB: a.DB, Clock: a.Clock, Projects: a.Projects, Resolver: a.Resolver, Orgs: a.Orgs,
		Sessions: a.Sessions, Members: members, Flows: a.Flows, Limiter: a.Limiter, Box: a.Box,
		BaseURL: func() string { return a.Config.BaseURL }, Fetch: a.ssoFetch, Log: a.Log, RSAKeys: a.rsaKeys})
	a.Orgs.AddImplicitRoleSource(a.SSO)
	a.Orgs.UseSSOConnections(a.SSO)
	apps := connectedapps.NewStore(a.DB, a.Clock)
	// A scope the policy removes leaves the consents given to it.
	a.RBAC.UseScopeHolders(apps)
	// Machine credentials are audited: client secrets issued and ended,
	// failed client authentications.
	machines := m2m.NewStore(a.DB, a.Clock)
	apps.UseAudit(a.Audit)
	machines.UseAudit(a.Audit)
	a.idp = idp.New(idp.Deps{DB: a.DB, Clock: a.Clock, Log: a.Log, Apps: apps, Orgs: a.Orgs,
		Projects: a.Projects, Flows: a.Flows, Limiter: a.Limiter, Sessions: a.Sessions,
		Members: members, M2M: machines, Audit: a.Audit, Policies: a.RBAC, BaseURL: func() string { return a.Config.BaseURL }})
	// Connected-app tokens were granted by whoever held the member's
	// address: an address change or a reactivation ends them too.
	a.Orgs.AddAddressHolder(a.idp)
	// So does a first proof of the address that ended unproven access:
	// whoever came in without it may have granted them.
	a.Orgs.AddMemberAccessEnder(a.idp.EndMemberAccess)
	// SCIM provisioning: members' scim_registration (a decorator, which
	// runs before the implicit role sources) and SCIM group roles. SCIM
	// deletes members (deactivation, DELETE /Users), so its copy of the
	// sessions bridge ends their connected-app tokens and consent too, as
	// the organization routes' does.
	scimSvc := scim.New(scim.Deps{DB: a.DB, Clock: a.Clock, Projects: a.Projects, Orgs: a.Orgs,
		Members: memberSessions{sessions: a.Sessions, apps: a.idp},
		Limiter: a.Limiter, Audit: a.Audit, BaseURL: func() string { return a.Config.BaseURL }})
	a.Orgs.AddMemberDecorator(scim.RegistrationsTable, scimSvc.Decorate)
	// A deleted member the identity provider still manages is kept when an
	// admin invites their address (it may reactivate them).
	a.Orgs.AddPurgeGuard(scim.PurgeGuard())
	a.Orgs.AddImplicitRoleSource(scimSvc)
	// A change removing roles looks for their assignments in these, and
	// locks their rows in this order (organizations, connections, members).
	a.RBAC.UseRoleReferrers(a.Orgs.EmailAssignmentRefs(), a.SSO, scimSvc, a.Orgs.MemberRoleRefs())
	// External connections in other organizations go with their source's
	// organization.
	a.Orgs.AddDeletionHook(a.SSO)
	// An organization's deletion ends its SCIM connection's bearer tokens:
	// audited as the connection's own deletion is.
	a.Orgs.AddDeletionHook(scimSvc)
	// A deleted member's OIDC provider tokens go with the deletion.
	a.Orgs.AddMemberDeletionHook(a.SSO)
	a.Impersonation = impersonation.New(impersonation.Deps{DB: a.DB, Clock: a.Clock, Projects: a.Projects, Orgs: a.Orgs,
		Sessions: a.Sessions, Limiter: a.Limiter, Audit: a.Audit})
	a.Orgs.AddAddressHolder(a.Impersonation)
	a.modules = []Module{
		a.RBAC,
		a.OAuth,
		a.idp,
		a.SSO,
		a.TrustedAuth,
		a.Impersonation,
		scimSvc,
		// The vendor Admin Portal's summary of the three above.
		adminportal.New(adminportal.Deps{Orgs: a.Orgs, Members: members}),
	}
	if a.Config.Dev {
		base := func() string { return a.Config.BaseURL }
		a.DevSAML, a.DevOIDC = devmode.NewSAMLIdP(base, a.SSO.SPMetadata), devmode.NewOIDCIdP(base)
	}
	return nil
}

// mountModules adds the modules' routes to the root mux (backend and
// public faces) and the SDK mux, behind each face's authentication. Every
// backend route resolves organization and member aliases first
// (organization.AliasEdge), so no handler has to.
func (a *App) mountModules(modules []Module, mux, sdk *routeMux, shapes *httpapi.ErrorShapes, sdkAuth, backendAuth func(http.Handler) http.Handler) {
	for _, m := range modules {
		for _, rt := range m.Routes() {
			if rt.Errors != nil {
				if rt.Face == httpapi.SDK {
					panic(fmt.Sprintf("app: route %q: the SDK face answers in its own envelope", rt.Pattern))
				}
				_, path, ok := strings.Cut(rt.Pattern, " ")
				if !ok {
					path = rt.Pattern
				}
				shapes.Add(path, rt.Errors)
			}
			if rt.Audit.Admin != "" {
				if rt.Handler == nil {
					panic(fmt.Sprintf("app: route %q: only JSON routes record administrative changes", rt.Pattern))
				}
				rt.Handler = notePath(rt.Pattern, rt.Handler)
			}
			switch {
			case rt.Raw == nil && rt.Handler == nil:
				// An error shape only (httpapi.ErrorShapeRoute).
			case rt.Raw != nil && rt.Face != httpapi.Public:
				panic(fmt.Sprintf("app: route %q: only public routes may be raw", rt.Pattern))
			case rt.Raw != nil:
				mux.handle(rt.Pattern, rt.Raw, RouteInfo{Raw: true, Audit: rt.Audit})
			case rt.Face == httpapi.SDK:
				sdk.handle(rt.Pattern, sdkAuth(httpapi.Handle(httpapi.SDK, requireProduct(rt.Product, rt.Handler))), RouteInfo{Audit: rt.Audit})
			case rt.Face == httpapi.Backend:
				mux.handle(rt.Pattern, a.backendHandler(rt.Handler, rt.ForMember, backendAuth), RouteInfo{Audit: rt.Audit, ForMember: rt.ForMember})
			default:
				mux.handle(rt.Pattern, httpapi.Handle(httpapi.Public, rt.Handler), RouteInfo{Audit: rt.Audit})
			}
		}
	}
}

// backendHandler is the one chain of every backend route: the project
// secret (auth), the face's envelope, then, unless the route acts for a
// member (forMember), the refusal of a member session header, which the
// route would otherwise ignore and serve with the secret's full rights
// (organization.RefuseMemberSession), and last the aliases.
func (a *App) backendHandler(h httpapi.HandlerFunc, forMember bool, auth func(http.Handler) http.Handler) http.Handler {
	h = a.aliases().Wrap(h)
	if !forMember {
		h = organization.RefuseMemberSession(h)
	}
	return auth(httpapi.Handle(httpapi.Backend, h))
}

// aliases is the backend face's alias resolution (organization.AliasEdge).
func (a *App) aliases() organization.AliasEdge { return organization.AliasEdge{Store: a.Orgs} }
