package app

import (
	"context"
	"net/http"
	"slices"
	"time"

	"github.com/latchkey/latchkey/internal/devmode"
	"github.com/latchkey/latchkey/internal/discovery"
	"github.com/latchkey/latchkey/internal/emailotp"
	"github.com/latchkey/latchkey/internal/emailupdate"
	"github.com/latchkey/latchkey/internal/httpapi"
	"github.com/latchkey/latchkey/internal/m2m"
	"github.com/latchkey/latchkey/internal/magiclink"
	"github.com/latchkey/latchkey/internal/mfa"
	"github.com/latchkey/latchkey/internal/organization"
	"github.com/latchkey/latchkey/internal/password"
	"github.com/latchkey/latchkey/internal/project"
	"github.com/latchkey/latchkey/internal/session"
	"github.com/latchkey/latchkey/internal/telemetry"
)

// Handler assembles the HTTP handler: every module's route table (the
// first-round methods' here, the later modules' from wireModules), behind
// each face's authentication, and the root's own routes.
func (a *App) Handler() http.Handler {
	members := memberSessions{sessions: a.Sessions, apps: a.idp}
	pw := password.Handlers{Service: a.passwords, Sessions: members}
	mfaAPI := mfa.Handlers{Service: a.mfa, Backend: true, Sessions: members}
	sess := session.Handlers{Sessions: a.Sessions, Projects: a.Projects, Authz: a.RBAC}
	// The first-round methods, each its own route table like the modules
	// wired in wireModules.
	core := []Module{
		organization.Handlers{Store: a.Orgs, Sessions: members, Limiter: a.Limiter},
		sess,
		magiclink.Handlers{Service: a.magicLinks, Sessions: members},
		emailotp.Handlers{Service: a.emailOTP},
		pw,
		discovery.Handlers{Service: a.discovery},
		mfaAPI,
		emailupdate.Handlers{Service: a.emailUpdate, Sessions: members},
		project.InfoHandlers{Counters: []project.Counter{a.Orgs, m2m.NewStore(a.DB, a.Clock)}},
	}
	origins := project.OriginPolicy{Resolver: a.Resolver, BaseOrigin: ownOrigin(a.Config.BaseURL)}
	events := telemetry.Handler{DB: a.DB, Clock: a.Clock, Resolver: a.Resolver, Origins: origins, Limiter: a.Limiter,
		MaxPerIP: a.Config.EventsMaxPerIP, MaxPerProject: a.Config.EventsMaxPerProject}

	sdkAuth := func(h http.Handler) http.Handler {
		return httpapi.Chain(h, origins.RequireOrigin(), a.Resolver.SDKAuth())
	}
	backendAuth := func(h http.Handler) http.Handler { return httpapi.Chain(h, a.Resolver.BackendAuth()) }
	a.routes.reset()
	sdk := newRouteMux(&a.routes, true, a.observeRoute)
	// Bootstrap names its project in the path; events name it per event.
	sdk.Handle("GET /sdk/v1/projects/bootstrap/{public_token}",
		httpapi.Handle(httpapi.SDK, project.BootstrapHandler(a.Resolver, a.emailDomain(), a.RBAC)))
	sdk.Handle("POST /sdk/v1/events", httpapi.Handle(httpapi.SDK, events.Post))

	mux := newRouteMux(&a.routes, false, a.observeRoute)
	const sdkMount = "/sdk/v1/"
	sdkFront := httpapi.WithCORS(origins)
	sdkFace := httpapi.Chain(httpapi.JSONNotFound(sdk.ServeMux), sdkFront)
	mux.ServeMux.Handle(sdkMount, sdkFace)
	// @stytch/vanilla-js 6.3.0 builds one URL without the slash after
	// /sdk/v1 (api-reference §1.4: members.getConnectedApps). The routes a
	// module registers under that spelling are SDK routes like the others,
	// served by the SDK mux behind the same front; no other path exists there.
	mux.ServeMux.Handle("/sdk/v1b2b/", sdkFace)
	// Module protocols with their own error shape (SCIM) name their paths.
	shapes := &httpapi.ErrorShapes{}
	a.mountModules(slices.Concat(core, a.modules), mux, sdk, shapes, sdkAuth, backendAuth)
	// The edge refuses some requests before the SDK face's WithCORS runs
	// (a body over the limit, a NUL in the query or credentials, a panic):
	// those refusals carry the CORS answer too, so the SDK can read the
	// catalogue error (api-reference §1.6).
	sdkRefusals := httpapi.CORSOnRefusal(origins, httpapi.CatalogueShape)
	shapes.Add(sdkMount, sdkRefusals)
	shapes.Add("/sdk/v1b2b/", sdkRefusals)
	// One backend route serves a member's password and MFA factors alike
	// (see deleteMemberSubresource), so the root owns it. Both deletions
	// act for a member session header (BackendCaller).
	mux.handle("DELETE /v1/b2b/organizations/{organization_id}/members/{a}/{b}",
		a.backendHandler(deleteMemberSubresource(pw, mfaAPI, a.aliases()), true, backendAuth),
		RouteInfo{Audit: httpapi.Audit{Factor: "factor_deleted"}, ForMember: true})
	mux.Handle("GET /v1/b2b/sessions/jwks/{project_id}", httpapi.Handle(httpapi.Backend, sess.JWKS))
	mux.Handle("GET /widget/{file...}", a.widgetHandler())
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusOK) })
	mux.HandleFunc("GET /readyz", a.ready)
	if a.Config.MetricsAddr == "" {
		mux.Handle("GET /metrics", a.Metrics.Handler())
	}
	if a.Config.Dev {
		mb := devmode.MailboxHandler(a.Outbox)
		mux.Handle("GET /dev/mailbox", mb)
		mux.Handle("GET /dev/mailbox/messages", mb)
		mux.Handle("GET /{$}", devmode.DemoHandler(a.Projects, a.Orgs, a.Config.BaseURL))
		devmode.NewOAuthMock(func() string { return a.Config.BaseURL }).Register(mux)
		a.DevSAML.Register(mux)
		a.DevOIDC.Register(mux)
	}

	// Routes without wildcards, the session check's among them, are looked
	// up by path first instead of matched by the mux (twice for the SDK
	// face); a hit is served through the same chain as by the muxes.
	exact := exactRoutes(mux, sdk, sdkMount, sdkFront)
	root := exact.Handler(httpapi.JSONNotFound(mux.ServeMux))
	if a.Config.Dev {
		root = devmode.HostGuard(func() string { return a.Config.BaseURL })(root)
	}
	return httpapi.Chain(root,
		httpapi.WithObserver(a.Metrics.ObserveRequest),
		httpapi.WithRequestID(requestIDEnv(a.Config.Dev)),
		httpapi.WithErrorShapes(shapes),
		httpapi.WithClientIP(a.trustedProxies),
		httpapi.WithLogging(a.Log),
		httpapi.WithRecover(),
		httpapi.WithDeadline(a.Config.RequestTimeout),
		httpapi.WithSecurityHeaders(a.Config.SecureCookies()),
		httpapi.WithBodyLimit(a.Config.BodyLimit),
		httpapi.WithCleanInput(),
	)
}

func requireProduct(product string, h httpapi.HandlerFunc) httpapi.HandlerFunc {
	if product == "" {
		return h
	}
	return func(r *http.Request) (any, error) {
		if err := project.RequireProduct(r.Context(), product); err != nil {
			return nil, err
		}
		return h(r)
	}
}

// readyTimeout bounds /readyz's ping: a database behind a silent
// partition never answers it, and a load balancer needs a 503 to take
// this replica out, not a probe that hangs until it gives up itself.
const readyTimeout = 2 * time.Second

func (a *App) ready(w http.ResponseWriter, r *http.Request) {
	ctx, cancel := context.WithTimeout(r.Context(), readyTimeout)
	defer cancel()
	if err := a.DB.Ping(ctx); err != nil {
		a.Log.Error("readyz: database unreachable", "error", err)
		w.WriteHeader(http.StatusServiceUnavailable)
		return
	}
	w.WriteHeader(http.StatusOK)
}

func requestIDEnv(dev bool) string {
	if dev {
		return "test"
	}
	return "live"
}

// ownOrigin is the server's own origin, which the SDK face trusts for
// every project, or "" when it has none of its own. It is trusted because
// nothing but the server's own pages is served there (the dev demo page,
// which calls the SDK face for the demo project): a call from it is the
// server calling itself, no third party's page, so no project needs to
// authorize it. It is the origin as a browser sends it (lower case, no
// default port; project.NormalizeOrigin, as projects' origins are
// stored), or it would match nothing. A base URL under a path prefix
// (https://example.com/auth) has none of its own: the host serves other
// things beside it, outside the prefix, and trusting https://example.com
// would let every page there call the SDK face for every project.
func ownOrigin(base string) string {
	o, err := project.NormalizeOrigin(base)
	if err != nil {
		return ""
	}
	return o
}
