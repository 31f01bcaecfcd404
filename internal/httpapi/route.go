package httpapi

import "net/http"

// Public is the face of routes that need no API credential: browser
// redirects and pages (OAuth and SSO starts and callbacks), and public
// documents (JWKS, discovery). JSON answers use the flat envelope.
const Public Face = 2

// Route is one line of a module's route table. The composition root mounts
// it behind the face's authentication: the public token (SDK), the project
// secret (Backend), or none (Public).
type Route struct {
	Face    Face
	Pattern string // e.g. "POST /sdk/v1/b2b/oauth/authenticate"
	// Handler answers JSON in the face's envelope. Raw, when set instead,
	// serves the request as it is (redirects, HTML); only Public routes
	// may be Raw, since the API faces promise JSON.
	Handler HandlerFunc
	Raw     http.Handler
	// Product, on the SDK face, is the product that must be enabled in the
	// project's SDK settings ("" for none).
	Product string
	// Audit is what the route's outcome means for the audit log.
	Audit Audit
	// Errors, when set, is the shape of the errors the edge answers on
	// the route's path itself (see ErrorShapes): a Raw route speaking a
	// protocol's own JSON sets it. A route with Errors and no handler
	// (ErrorShapeRoute) serves nothing and only names a subtree's shape.
	Errors ErrorWriter
	// ForMember, on the backend face, says the handler acts for the member
	// session a customer's server may send with the project secret (the
	// Node client's method_options.authorization headers): it authorizes
	// the call by that member's roles. The root refuses those headers on
	// every other backend route, so a call that names a member is never
	// served with the secret's full rights instead.
	ForMember bool
}

// Audit says what a route's outcome means for the audit log and the login
// metrics: a login by the method Login, a change of a member's factors
// (the action Factor), or a security-relevant administrative change (the
// action Admin). The zero value records nothing.
type Audit struct {
	Login  string
	Factor string
	Admin  string
}

// LogsLogin returns the route with its outcomes recorded as logins by
// method ("magic_link", "password"...).
func (rt Route) LogsLogin(method string) Route {
	rt.Audit = Audit{Login: method}
	return rt
}

// LogsFactorChange returns the route with its successes recorded as the
// factor change action ("totp_created"...); a refused change changed
// nothing and is not recorded.
func (rt Route) LogsFactorChange(action string) Route {
	rt.Audit = Audit{Factor: action}
	return rt
}

// LogsAdminChange returns the route with its successes recorded as the
// administrative change action ("organization_updated", "member_deleted"...;
// the list is in the README's audit section); a refused change changed
// nothing and is not recorded.
func (rt Route) LogsAdminChange(action string) Route {
	rt.Audit = Audit{Admin: action}
	return rt
}

// ActsForMember returns the backend route marked as acting for the member
// session header its calls may carry (see ForMember).
func (rt Route) ActsForMember() Route {
	rt.ForMember = true
	return rt
}

// PublicRoute is a raw route of the public face: redirects, HTML pages,
// protocol endpoints that answer in their own format.
func PublicRoute(pattern string, h http.Handler) Route {
	return Route{Face: Public, Pattern: pattern, Raw: h}
}

// ErrorShapeRoute is a route table line that serves nothing: the edge's
// errors on the paths pattern (a ServeMux pattern without a method)
// matches, a path no route serves among them, are answered by wr.
func ErrorShapeRoute(pattern string, wr ErrorWriter) Route {
	return Route{Face: Public, Pattern: pattern, Errors: wr}
}

// SDKRoute is a JSON route of the SDK face, open whatever products the
// project enables (see ForProduct).
func SDKRoute(pattern string, h HandlerFunc) Route {
	return Route{Face: SDK, Pattern: pattern, Handler: h}
}

// BackendRoute is a JSON route of the backend face.
func BackendRoute(pattern string, h HandlerFunc) Route {
	return Route{Face: Backend, Pattern: pattern, Handler: h}
}

// ForProduct returns the route open only when the project enables product.
func (rt Route) ForProduct(product string) Route {
	rt.Product = product
	return rt
}

// SDKRouteFor makes routes like SDKRoute, each open only when the project
// enables product: a method's route table gates its SDK routes with it.
func SDKRouteFor(product string) func(pattern string, h HandlerFunc) Route {
	return func(pattern string, h HandlerFunc) Route { return SDKRoute(pattern, h).ForProduct(product) }
}
