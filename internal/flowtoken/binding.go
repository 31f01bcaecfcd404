package flowtoken

import (
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/latchkey/latchkey/internal/ids"
)

// Browser binding. Whoever holds a flow's state could otherwise finish
// the flow in any browser. The login CSRF: an attacker starts a login for
// his own account, gets his provider's answer (a callback URL with code
// and state, a SAML response form with its RelayState) and makes a
// victim's browser deliver it; the victim lands logged in as the attacker.
// Or, where the customer's page holds a PKCE verifier, he starts with his
// own challenge and sends the provider URL to the victim. So the start
// sets a cookie in the browser it answers, holding a random value whose
// hash the state ticket keeps (NewBinding), and the callback takes the
// state only from a browser holding that cookie (Held).
//
// The cookie is HttpOnly, host-only on the base URL's host, and lives as
// long as the state. Each flow chooses its name, its SameSite (Lax where
// the provider comes back by a top-level GET, None where it posts
// cross-site) and Secure (an https base URL; SameSite=None requires it).
// A Secure binding is named with the __Host- prefix, which browsers accept
// only from this very host, Secure, on path "/": without it a sibling
// subdomain (a customer's other site under the same parent domain) could
// plant its own binding cookie, with Domain set to the parent and the
// callback's path, and then deliver its holder's callback to a victim's
// browser, the login CSRF the binding is there to stop. Over plain http
// (loopback, dev) the prefix is refused by browsers, and the cookie keeps
// the callback's path instead. One browser has one binding per flow at a time: a second
// start replaces the first's, whose callback is then refused.
//
// It lives here, beside the tickets it binds, because it is one more thing
// every browser flow must get right and so gets right once.
type Binding struct {
	// Name is the cookie's name, one per flow (latchkey_oauth_state, ...).
	Name string
	// Path is the path of the callback the cookie must reach (PathOf),
	// the cookie's path unless Secure (then "/", as __Host- requires).
	Path     string
	Secure   bool
	SameSite http.SameSite
	// TTL is the state's lifetime, and so the cookie's.
	TTL time.Duration
}

// NewBinding makes a binding for one start: the cookie to set in the
// starting browser, and the hash of its value, which the state ticket
// keeps (never the value: a ticket row must not be enough to finish the
// flow).
func (b Binding) NewBinding() (cookie *http.Cookie, hash string) {
	value := ids.Token()
	return b.cookie(value, int(b.TTL.Seconds())), ids.Hash(value)
}

// Removal is the cookie that removes the binding from the browser once
// its flow is over.
func (b Binding) Removal() *http.Cookie { return b.cookie("", -1) }

// HostPrefix is the cookie-name prefix that binds a Secure cookie to the
// host that set it (RFC 6265bis "__Host-").
const HostPrefix = "__Host-"

// CookieName is the binding cookie's name as set: Name, with HostPrefix
// when Secure.
func (b Binding) CookieName() string {
	if b.Secure {
		return HostPrefix + b.Name
	}
	return b.Name
}

func (b Binding) cookie(value string, maxAge int) *http.Cookie {
	path := b.Path
	if path == "" || b.Secure {
		path = "/"
	}
	return &http.Cookie{Name: b.CookieName(), Value: value, Path: path, HttpOnly: true, Secure: b.Secure,
		SameSite: b.SameSite, MaxAge: maxAge}
}

// Held reports whether request r comes from the browser a state was bound
// to: it carries the cookie whose hash the state kept (hash; "" binds
// nothing, and nothing holds it). Compared in constant time.
func (b Binding) Held(r *http.Request, hash string) bool {
	c, err := r.Cookie(b.CookieName())
	return err == nil && hash != "" && ids.Equal(ids.Hash(c.Value), hash)
}

// PathOf is the path of callback (a URL on the base URL), the binding
// cookie's Path: "/" when it has none.
func PathOf(callback string) string {
	if u, err := url.Parse(callback); err == nil && u.Path != "" {
		return u.Path
	}
	return "/"
}

// CallbackHostParam marks a start already sent to the callback's host
// (ToCallbackHost), so that it is sent there once at most.
const CallbackHostParam = "latchkey_callback_host"

// ToCallbackHost returns where to send a start served under another host
// name than the base URL's (base), and whether to. The provider sends the
// browser back to the callback on the base URL, and a cookie reaches only
// the host that set it; but the widget starts on its own API base
// (api-reference 1.3, 3.5), which may be any name the server answers to
// (127.0.0.1 for localhost, an internal name), so such a start is sent to
// the same start on the base URL first, where the binding cookie is then
// set. Once only: a proxy that rewrites the Host header would otherwise
// send it round for ever, and a start marked as sent (CallbackHostParam)
// proceeds wherever it is. Ports do not matter: cookies ignore them.
func ToCallbackHost(base string, r *http.Request) (string, bool) {
	u, err := url.Parse(base)
	if err != nil || u.Hostname() == "" || r.URL.Query().Has(CallbackHostParam) {
		return "", false
	}
	if strings.EqualFold((&url.URL{Host: r.Host}).Hostname(), u.Hostname()) {
		return "", false
	}
	// The query as it came, in its order, with the mark.
	query := CallbackHostParam + "=1"
	if r.URL.RawQuery != "" {
		query = r.URL.RawQuery + "&" + query
	}
	return base + r.URL.EscapedPath() + "?" + query, true
}
