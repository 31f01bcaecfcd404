package httpapi

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"strings"

	"github.com/latchkey/latchkey/internal/netlist"
)

// Client is who sent the request being served, for records that outlive
// it (a session's ip_address and user_agent, an audit event): the full
// address WithClientIP computed (rate limits count a masked one, see
// ClientIP) and the User-Agent, made valid UTF-8 without NULs and cut to
// maxUserAgent bytes so it can be stored as it is.
func Client(ctx context.Context) (ip, userAgent string) {
	if st := stateOf(ctx); st != nil && st.hasClient {
		return st.clientIP, st.userAgent
	}
	return "", ""
}

// maxUserAgent bounds a stored User-Agent; real ones are a few hundred bytes.
const maxUserAgent = 512

func cleanUserAgent(ua string) string {
	ua = strings.ReplaceAll(strings.ToValidUTF8(ua, "\uFFFD"), "\x00", "")
	if len(ua) > maxUserAgent {
		ua = strings.ToValidUTF8(ua[:maxUserAgent], "")
	}
	return ua
}

// ClientIP returns the client address that per-address rate limits count
// r under: the address WithClientIP computed (which honours
// X-Forwarded-For from trusted proxies), or else the direct peer, as
// limitAddress masks it. Every rate-limit key that names the client takes
// its address from here (or ClientIPFrom); records that outlive the request
// (sessions, audit events) keep the full address of Client.
func ClientIP(r *http.Request) string {
	if ip, ok := limitIPOf(r.Context()); ok {
		return ip
	}
	return limitAddress(peerIP(r))
}

// ClientIPFrom is ClientIP for code that holds only the request's context;
// "" outside a request that went through WithClientIP.
func ClientIPFrom(ctx context.Context) string {
	ip, _ := limitIPOf(ctx)
	return ip
}

func limitIPOf(ctx context.Context) (string, bool) {
	if st := stateOf(ctx); st != nil && st.hasClient {
		return st.limitIP, true
	}
	return "", false
}

// limitAddress is the part of a client address that names one client for
// rate limits. An IPv6 host is handed at least a /64 and may take a fresh
// address of it for every request, so counting full IPv6 addresses would
// give one guesser 2^64 allowances: all of a /64 counts as one client
// ("2001:db8:1:2::/64"). An IPv4-mapped IPv6 address is its plain IPv4
// address. Anything that is not an address (a test's RemoteAddr) is kept.
func limitAddress(ip string) string {
	a, err := netip.ParseAddr(ip)
	if err != nil {
		return ip
	}
	if a = a.Unmap(); a.Is4() {
		return a.String()
	}
	p, err := a.Prefix(64)
	if err != nil {
		return ip
	}
	return p.String()
}

func peerIP(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
}

// ParseTrustedProxies parses LATCHKEY_TRUSTED_PROXIES (netlist.Parse).
func ParseTrustedProxies(list string) ([]netip.Prefix, error) {
	p, err := netlist.Parse(list)
	if err != nil {
		return nil, fmt.Errorf("trusted proxy %w", err)
	}
	return p, nil
}

// WithClientIP computes every request's client address once (and keeps
// its User-Agent beside it; see Client). Only when
// the direct peer is a trusted proxy is X-Forwarded-For read, from the
// right: each entry added by a trusted proxy is skipped, and the first
// one that is not a trusted proxy is the client (entries further left
// were written by the client itself and prove nothing). From an
// untrusted peer the header is ignored, so nobody can pick the address
// their per-address limits are counted under.
func WithClientIP(trusted []netip.Prefix) Middleware {
	isTrusted := func(a netip.Addr) bool {
		for _, p := range trusted {
			if p.Contains(a) {
				return true
			}
		}
		return false
	}
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			r, st := withState(r)
			st.clientIP, st.userAgent, st.hasClient = clientIPOf(r, isTrusted), cleanUserAgent(r.UserAgent()), true
			st.limitIP = limitAddress(st.clientIP)
			next.ServeHTTP(w, r)
		})
	}
}

func clientIPOf(r *http.Request, isTrusted func(netip.Addr) bool) string {
	peer := peerIP(r)
	addr, err := netip.ParseAddr(peer)
	if err != nil || !isTrusted(addr.Unmap()) {
		return peer
	}
	client := addr.Unmap()
	hops := r.Header.Values("X-Forwarded-For")
	for i := len(hops) - 1; i >= 0; i-- {
		entries := strings.Split(hops[i], ",")
		for j := len(entries) - 1; j >= 0; j-- {
			a, err := parseHop(strings.TrimSpace(entries[j]))
			if err != nil {
				// A malformed hop: nothing left of it can be trusted, so
				// the last proxy's view (the hop to its right) stands.
				return client.String()
			}
			client = a.Unmap()
			if !isTrusted(client) {
				return client.String()
			}
		}
	}
	return client.String()
}

// parseHop reads one X-Forwarded-For entry: an address, or an address with
// a port ("192.0.2.1:5678", "[2001:db8::1]:443"), which some proxies
// write. The port is dropped.
func parseHop(s string) (netip.Addr, error) {
	a, err := netip.ParseAddr(s)
	if err == nil {
		return a, nil
	}
	ap, perr := netip.ParseAddrPort(s)
	if perr != nil {
		return netip.Addr{}, err
	}
	return ap.Addr(), nil
}
