package idp

import (
	"net/http"
	"strings"

	"github.com/latchkey/latchkey/internal/apierr"
	"github.com/latchkey/latchkey/internal/httpapi"
)

// openCORS is the CORS answer of the provider's protocol endpoints, so
// that browser clients can use them: a single-page app that is a public
// client (authorization code with PKCE), a browser MCP client reading the
// discovery document and the keys. Any origin may read them ("*"), never
// with credentials: these routes read no cookie, a client's credentials
// are explicit (its Authorization header or its body) and a page that
// holds them may send them from anywhere, so there is no ambient
// authority for an origin list to protect. The SDK face's
// httpapi.WithCORS is the opposite case (exact origins a project
// authorizes, with credentials, because the SDK sends cookies), so it is
// not used here. The browser pages (authorization, consent, end_session,
// the logged-out page) get none: they are navigated to, never fetched.
type openCORS struct {
	// methods are the methods the route serves ("GET", "POST", "GET, POST").
	methods string
	// headers are the request headers the route reads beyond the
	// CORS-safelisted ones ("" for none).
	headers string
	// expose lets a page read the route's WWW-Authenticate challenge
	// (RFC 6749 5.2, RFC 6750 3).
	expose bool
}

var (
	// A browser MCP client sends MCP-Protocol-Version with its metadata
	// discovery requests (MCP authorization spec); a preflight that did
	// not allow it would fail the request before the document is read.
	docCORS    = openCORS{methods: "GET", headers: "MCP-Protocol-Version"}
	clientCORS = openCORS{methods: "POST", headers: "Authorization, Content-Type", expose: true}
	bearerCORS = openCORS{methods: "GET, POST", headers: "Authorization, Content-Type", expose: true}
)

// routes are path's routes, one per method of c served by h, with the CORS
// answer; the path's preflight (OPTIONS, which the mux would answer 405);
// and the shape of the edge's refusals there (a body over the limit, a
// method the path does not serve, a panic), which carry the CORS answer
// too, or a page could not read them.
func (c openCORS) routes(path string, h http.HandlerFunc) []httpapi.Route {
	var out []httpapi.Route
	for _, m := range strings.Split(c.methods, ", ") {
		out = append(out, httpapi.PublicRoute(m+" "+path, c.wrap(h)))
	}
	return append(out, httpapi.PublicRoute("OPTIONS "+path, http.HandlerFunc(c.preflight)),
		httpapi.ErrorShapeRoute(path, c.refusal))
}

func (c openCORS) wrap(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c.answer(w.Header())
		h.ServeHTTP(w, r)
	})
}

// answer sets the headers of an actual (not preflight) response. With
// "*" the answer does not vary by Origin, so it is set on every response
// and caches need no Vary.
func (c openCORS) answer(h http.Header) {
	h.Set("Access-Control-Allow-Origin", "*")
	if c.expose {
		h.Set("Access-Control-Expose-Headers", "WWW-Authenticate")
	}
}

// preflight answers OPTIONS: 204 with the route's methods and the request
// headers it reads. The browser checks the request against them itself;
// a plain OPTIONS (no Access-Control-Request-Method) learns the methods
// from Allow.
func (c openCORS) preflight(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("Access-Control-Allow-Origin", "*")
	h.Set("Allow", c.methods+", OPTIONS")
	if r.Header.Get("Access-Control-Request-Method") != "" {
		h.Set("Access-Control-Allow-Methods", c.methods)
		if c.headers != "" {
			h.Set("Access-Control-Allow-Headers", c.headers)
		}
		h.Set("Access-Control-Max-Age", httpapi.CORSMaxAge)
	}
	w.WriteHeader(http.StatusNoContent)
}

// refusal answers the edge's own refusals on the route's path in the
// catalogue's shape (as before), with the CORS answer.
func (c openCORS) refusal(w http.ResponseWriter, r *http.Request, e *apierr.Error) {
	c.answer(w.Header())
	httpapi.WriteError(w, r, e)
}
