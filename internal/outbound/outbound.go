// Package outbound is the HTTP client for fetching URLs that a
// less-trusted party chooses. Anyone who proves an email address can
// create an organization and administer it, and an administrator names the
// URLs of its SSO connections (SAML metadata, OIDC discovery, token,
// userinfo, JWKS); the server then fetches them from inside the operator's
// network, where loopback services, cloud metadata (169.254.169.254) and
// private networks answer. A plain http.Client would fetch those for them.
//
// The address filter runs in the dialer's Control hook, on the address
// actually connected to once DNS has answered: a host name resolving to
// 10.0.0.1, a redirect to 127.0.0.1 and DNS rebinding (public at the check,
// private at the fetch) meet the same check, since each connection is
// dialled through it. The operator's allowlist (Allowlist) opens private
// networks an on-premises identity provider lives on.
//
// Plain http is refused except to loopback (CheckURL), redirects are few
// and never go from https to http, and a response body over MaxBody is an
// error for whoever reads it, never a silent truncation.
package outbound

import (
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"syscall"
	"time"
)

// ErrRefused is the cause of every fetch the guard stops: a destination
// that is not public and not allowlisted, plain http off loopback, an
// https-to-http redirect or too many redirects. Callers answer with their
// own generic error; the address is in the wrapped text, for logs only.
var ErrRefused = errors.New("outbound: destination refused")

// ErrTooLarge is the read error of a response body longer than MaxBody.
var ErrTooLarge = errors.New("outbound: response body too large")

// MaxBody is the most a guarded fetch reads of a response body: ample for
// metadata, discovery documents, key sets and userinfo.
const MaxBody = 1 << 20

// maxRedirects is how many redirects a guarded fetch follows. Providers
// redirect once or twice (a trailing slash, a vanity host); each hop is
// another request the caller did not name.
const maxRedirects = 3

// timeout bounds a whole guarded fetch, redirects and body included.
const timeout = 10 * time.Second

// Guard holds the allowlist and the client that enforces it.
type Guard struct {
	allow  Allowlist
	client *http.Client
}

// New returns a guard permitting public addresses and allow's networks.
func New(allow Allowlist) *Guard {
	d := &net.Dialer{Timeout: 5 * time.Second, KeepAlive: 30 * time.Second, Control: allow.control}
	tr := &http.Transport{
		// No proxy: the dialer must see the destination, not a proxy
		// (which would fetch anything for us on the inside).
		Proxy:                 nil,
		DialContext:           d.DialContext,
		ForceAttemptHTTP2:     true,
		MaxIdleConns:          32,
		IdleConnTimeout:       90 * time.Second,
		TLSHandshakeTimeout:   5 * time.Second,
		ExpectContinueTimeout: time.Second,
		ResponseHeaderTimeout: timeout,
	}
	g := &Guard{allow: allow}
	g.client = &http.Client{Timeout: timeout, Transport: guardTransport{g: g, next: tr}, CheckRedirect: checkRedirect}
	return g
}

// Client is the guarded client. It is shared: callers must not change it.
func (g *Guard) Client() *http.Client { return g.client }

// CheckURL is CheckURL with the allowlist: plain http to a loopback host
// needs loopback allowlisted too (tests and `latchkey dev`), since the
// fetch could not reach it anyway.
func (g *Guard) CheckURL(raw string) error {
	u, err := checkURL(raw)
	if err != nil {
		return err
	}
	if u.Scheme == "http" && !g.allow.permitsLoopback() {
		return errors.New("must use https")
	}
	return nil
}

// CheckURL is the scheme rule for a URL this server fetches and then
// trusts (keys, metadata, tokens, userinfo): absolute https, or plain
// http only to a loopback host, since an answer fetched in clear over a
// network could be swapped on the way. Its error says which part failed,
// for the caller's own message.
func CheckURL(raw string) error {
	_, err := checkURL(raw)
	return err
}

func checkURL(raw string) (*url.URL, error) {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" || (u.Scheme != "https" && u.Scheme != "http") {
		return nil, errors.New("must be an absolute https URL")
	}
	if u.Scheme == "http" && !IsLoopbackHost(u.Hostname()) {
		return nil, errors.New("must use https (http is allowed only to a loopback host)")
	}
	return u, nil
}

// IsLoopbackHost reports whether host (without port) is localhost or a
// loopback address literal.
func IsLoopbackHost(host string) bool {
	if host == "localhost" {
		return true
	}
	a, err := netip.ParseAddr(host)
	return err == nil && a.Unmap().IsLoopback()
}

// control refuses, at connect time, an address the allowlist does not
// permit.
func (a Allowlist) control(network, address string, _ syscall.RawConn) error {
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return fmt.Errorf("%w: %s %q: %v", ErrRefused, network, address, err)
	}
	if !a.Permits(ap.Addr()) {
		return fmt.Errorf("%w: %s is not a public address", ErrRefused, ap.Addr())
	}
	return nil
}

// checkRedirect follows at most maxRedirects, never from https to http.
// The next hop's scheme and address are then checked like the first's.
func checkRedirect(req *http.Request, via []*http.Request) error {
	if len(via) > maxRedirects {
		return fmt.Errorf("%w: more than %d redirects", ErrRefused, maxRedirects)
	}
	if via[len(via)-1].URL.Scheme == "https" && req.URL.Scheme != "https" {
		return fmt.Errorf("%w: redirect from https to %s", ErrRefused, req.URL.Scheme)
	}
	return nil
}

// guardTransport applies the scheme rule to every request, redirects
// included, and caps every response body.
type guardTransport struct {
	g    *Guard
	next http.RoundTripper
}

func (t guardTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if err := t.g.CheckURL(req.URL.String()); err != nil {
		if req.Body != nil {
			_ = req.Body.Close()
		}
		return nil, fmt.Errorf("%w: %s %v", ErrRefused, req.URL.Redacted(), err)
	}
	res, err := t.next.RoundTrip(req)
	if err != nil {
		return nil, err
	}
	if res.ContentLength > MaxBody {
		_ = res.Body.Close()
		return nil, ErrTooLarge
	}
	res.Body = &cappedBody{rc: res.Body, left: MaxBody}
	return res, nil
}

// cappedBody reads at most left bytes and then fails if more follow: a
// caller decoding a truncated document could otherwise take it for whole.
type cappedBody struct {
	rc   io.ReadCloser
	left int64
}

func (b *cappedBody) Read(p []byte) (int, error) {
	if b.left <= 0 {
		var one [1]byte
		n, err := b.rc.Read(one[:])
		if n > 0 {
			return 0, ErrTooLarge
		}
		return 0, err
	}
	if int64(len(p)) > b.left {
		p = p[:b.left]
	}
	n, err := b.rc.Read(p)
	b.left -= int64(n)
	return n, err
}

func (b *cappedBody) Close() error { return b.rc.Close() }
