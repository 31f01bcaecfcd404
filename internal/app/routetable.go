package app

import (
	"net/http"
	"slices"
	"strings"
	"sync"

	"github.com/latchkey/latchkey/internal/httpapi"
)

// RouteInfo names one mounted route: the face whose authentication and
// envelope it has, and its ServeMux pattern ("POST /sdk/v1/b2b/...").
// Raw routes (module browser routes) may answer with HTML or redirects.
// ForMember backend routes act for a member session header; the others
// refuse one (httpapi.Route.ForMember).
type RouteInfo struct {
	Face      httpapi.Face
	Pattern   string
	Raw       bool
	Audit     httpapi.Audit
	ForMember bool
}

// RouteTable lists every route Handler mounts, core and module routes
// alike. Cross-cutting tests iterate it (the hostile-input corpus, the SDK
// wire allowlist), so a route added anywhere is covered without a test
// change: routes are recorded by the muxes Handler mounts them on.
func (a *App) RouteTable() []RouteInfo {
	a.routes.mu.Lock()
	built := a.routes.list != nil
	a.routes.mu.Unlock()
	if !built {
		a.Handler()
	}
	a.routes.mu.Lock()
	defer a.routes.mu.Unlock()
	return slices.Clone(a.routes.list)
}

// routeTable is what the last Handler call mounted.
type routeTable struct {
	mu   sync.Mutex
	list []RouteInfo
}

func (t *routeTable) reset() {
	t.mu.Lock()
	t.list = []RouteInfo{}
	t.mu.Unlock()
}

func (t *routeTable) add(ri RouteInfo) {
	t.mu.Lock()
	t.list = append(t.list, ri)
	t.mu.Unlock()
}

// routeMux is a ServeMux that records what is mounted on it. The SDK mux
// holds only SDK routes; on the root mux /v1/ paths are the backend face
// and the rest public.
type routeMux struct {
	*http.ServeMux
	sdk     bool
	table   *routeTable
	wrap    func(pattern string, au httpapi.Audit, h http.Handler) http.Handler // names the route (metrics, audit)
	mounted []mountedRoute
}

// mountedRoute is a pattern and the handler the mux serves it with.
type mountedRoute struct {
	pattern string
	h       http.Handler
}

func newRouteMux(t *routeTable, sdk bool, wrap func(string, httpapi.Audit, http.Handler) http.Handler) *routeMux {
	return &routeMux{ServeMux: http.NewServeMux(), sdk: sdk, table: t, wrap: wrap}
}

// Handle mounts and records a route that the audit log does not record.
func (m *routeMux) Handle(pattern string, h http.Handler) {
	m.handle(pattern, h, RouteInfo{})
}

// HandleFunc mounts and records a route that the audit log does not record.
func (m *routeMux) HandleFunc(pattern string, h func(http.ResponseWriter, *http.Request)) {
	m.handle(pattern, http.HandlerFunc(h), RouteInfo{})
}

// handle mounts h at pattern and records it with what ri says of it (Raw,
// Audit, ForMember); the face follows from the mux and the path.
func (m *routeMux) handle(pattern string, h http.Handler, ri RouteInfo) {
	if m.wrap != nil {
		h = m.wrap(pattern, ri.Audit, h)
	}
	m.ServeMux.Handle(pattern, h)
	m.mounted = append(m.mounted, mountedRoute{pattern, h})
	ri.Face, ri.Pattern = httpapi.Public, pattern
	_, path, _ := strings.Cut(pattern, " ")
	switch {
	case m.sdk:
		ri.Face = httpapi.SDK
	case strings.HasPrefix(path, "/v1/") && !strings.HasPrefix(path, "/v1/b2b/sessions/jwks/"):
		ri.Face = httpapi.Backend
	}
	m.table.add(ri)
}

// exactRoutes is Handler's fast path (httpapi.ExactRoutes): the routes of
// root, and those of sdk, which root mounts at sdkMount behind front.
func exactRoutes(root, sdk *routeMux, sdkMount string, front httpapi.Middleware) *httpapi.ExactRoutes {
	t := &httpapi.ExactRoutes{}
	for _, rt := range root.mounted {
		t.Add(root.ServeMux, rt.pattern, rt.h)
	}
	for _, rt := range sdk.mounted {
		t.AddMounted(root.ServeMux, sdkMount, sdk.ServeMux, rt.pattern, httpapi.Chain(rt.h, front))
	}
	return t
}
