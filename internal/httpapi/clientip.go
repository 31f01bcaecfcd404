package httpapi

import (
	"net"
	"net/http"
)

// ClientIP returns the address the request came from, used as a
// rate-limit key. It deliberately ignores X-Forwarded-For: trusting a
// client-supplied header would let anyone pick a fresh key per request.
func ClientIP(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
}
