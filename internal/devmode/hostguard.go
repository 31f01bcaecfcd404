package devmode

import (
	"net"
	"net/http"
	"net/url"
	"path"
	"strings"

	"github.com/latchkey/latchkey/internal/apierr"
	"github.com/latchkey/latchkey/internal/httpapi"
	"github.com/latchkey/latchkey/internal/outbound"
)

// HostGuard answers the dev routes (everything under /dev/: the mailbox,
// which shows every login code and link, and the mock identity providers,
// which log anyone in) only for a request whose Host is the base URL's
// host and port, or a loopback name or address: DNS rebinding. A page on
// attacker.example, whose name its owner points at 127.0.0.1 once the
// page has loaded, is same-origin, as far as the browser knows, with the
// dev server listening there, and could read the mailbox; its requests
// still say Host: attacker.example:8080, which is refused. base is read
// per request (the server's URL may be known only once it listens). Other
// routes answer whatever the Host: they have their own checks.
func HostGuard(base func() string) httpapi.Middleware {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if p := path.Clean("/" + r.URL.Path); (p == "/dev" || strings.HasPrefix(p, "/dev/")) && !devHost(r.Host, base()) {
				httpapi.WriteError(w, r, apierr.New(apierr.InvalidRequest).WithMessage(
					"The dev routes answer only on the base URL's host or a loopback address; "+
						"set LATCHKEY_BASE_URL to the address you browse to."))
				return
			}
			next.ServeHTTP(w, r)
		})
	}
}

// devHost reports whether a request's Host (host[:port]) names this dev
// server: a loopback name or address on any port (a page can be served
// there only by this machine), or the base URL's host on its port (the
// scheme's default when it names none), case-insensitively.
func devHost(host, base string) bool {
	name, port := splitHost(host)
	if outbound.IsLoopbackHost(strings.ToLower(name)) {
		return true
	}
	u, err := url.Parse(base)
	if err != nil || u.Hostname() == "" || name == "" {
		return false
	}
	// A port left out is the scheme's default, on either side.
	defaults := map[string]string{"http": "80", "https": "443"}
	want := u.Port()
	if want == "" {
		want = defaults[u.Scheme]
	}
	if port == "" {
		port = defaults[u.Scheme]
	}
	return strings.EqualFold(name, u.Hostname()) && port == want
}

// splitHost splits a Host header into its name (without an IPv6 literal's
// brackets) and port, which is "" when it names none.
func splitHost(host string) (name, port string) {
	if h, p, err := net.SplitHostPort(host); err == nil {
		return h, p
	}
	return strings.TrimSuffix(strings.TrimPrefix(host, "["), "]"), ""
}
