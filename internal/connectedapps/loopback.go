package connectedapps

import (
	"net/netip"
	"strconv"
	"strings"
)

// loopbackPortMatch reports whether requested is registered except for its
// port, and registered is a loopback IP redirect URI of a native app
// (http://127.0.0.1/... or http://[::1]/...). RFC 8252 7.3 requires the
// server to allow any port there: such an app listens on a port the
// operating system hands it when the flow starts, and cannot register it
// beforehand; RFC 9700 2.1 and 4.1.3 keep exact matching for everything
// else. Only the port may differ: the rest is compared byte for byte, the
// host must be the registered IP literal itself (not "localhost", which
// RFC 8252 8.3 advises against and a hosts file can point elsewhere), and
// neither side may carry userinfo. A loopback address is this machine, so
// no port of it can send the code to another host.
func loopbackPortMatch(registered, requested string) bool {
	const scheme = "http://"
	if !strings.HasPrefix(registered, scheme) || !strings.HasPrefix(requested, scheme) {
		return false
	}
	regHost, regPort, regRest, ok := splitAuthority(registered[len(scheme):])
	if !ok {
		return false
	}
	reqHost, reqPort, reqRest, ok := splitAuthority(requested[len(scheme):])
	if !ok || reqHost != regHost || reqRest != regRest || !validPort(regPort) || !validPort(reqPort) {
		return false
	}
	ip, err := netip.ParseAddr(strings.Trim(regHost, "[]"))
	return err == nil && ip.IsLoopback()
}

// splitAuthority splits what follows "http://" into the host (an IPv6
// literal keeps its brackets), the port ("" when none) and the rest of the
// URI (path, query). ok is false for userinfo or a malformed authority.
func splitAuthority(s string) (host, port, rest string, ok bool) {
	end := strings.IndexAny(s, "/?#")
	if end < 0 {
		end = len(s)
	}
	auth, rest := s[:end], s[end:]
	if strings.Contains(auth, "@") {
		return "", "", "", false
	}
	if strings.HasPrefix(auth, "[") {
		i := strings.Index(auth, "]")
		if i < 0 {
			return "", "", "", false
		}
		host, after := auth[:i+1], auth[i+1:]
		if after == "" {
			return host, "", rest, true
		}
		if !strings.HasPrefix(after, ":") {
			return "", "", "", false
		}
		return host, after[1:], rest, true
	}
	host, port, _ = strings.Cut(auth, ":")
	return host, port, rest, host != ""
}

// validPort accepts no port or a decimal one of 1 to 65535.
func validPort(p string) bool {
	if p == "" {
		return true
	}
	if len(p) > 5 || strings.Trim(p, "0123456789") != "" {
		return false
	}
	n, err := strconv.Atoi(p)
	return err == nil && n >= 1 && n <= 65535
}
