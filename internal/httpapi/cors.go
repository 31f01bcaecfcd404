package httpapi

import (
	"net/http"
	"slices"
	"strings"
)

// OriginPolicy decides whether a browser origin may call the SDK face. For
// a preflight, r carries no credentials, so the policy can only ask whether
// any project authorizes the origin; for the real request it checks the
// project named by the public token.
type OriginPolicy interface {
	AllowOrigin(r *http.Request, origin string, preflight bool) bool
}

const (
	corsMethods = "GET, POST, PUT, DELETE, OPTIONS"
	corsHeaders = "Authorization, Content-Type, X-SDK-Client, X-SDK-Parent-Host"
)

// Shared header values (see jsonContentType).
var (
	varyOrigin       = []string{"Origin"}
	allowCredentials = []string{"true"}
)

// CORSMaxAge is how long (seconds) a browser may keep a preflight's
// answer, on every route that answers CORS.
const CORSMaxAge = "600"

// WithCORS answers preflights and sets CORS headers with the exact origin
// (never "*", because the SDK sends credentials).
func WithCORS(policy OriginPolicy) Middleware {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			origin := r.Header.Get("Origin")
			h := w.Header()
			if len(h["Vary"]) == 0 {
				h["Vary"] = varyOrigin
			} else {
				h.Add("Vary", "Origin")
			}
			preflight := r.Method == http.MethodOptions && r.Header.Get("Access-Control-Request-Method") != ""
			if origin != "" && policy.AllowOrigin(r, origin, preflight) {
				h["Access-Control-Allow-Origin"] = []string{origin}
				h["Access-Control-Allow-Credentials"] = allowCredentials
				if preflight {
					h.Set("Access-Control-Allow-Methods", corsMethods)
					h.Set("Access-Control-Allow-Headers", allowHeaders(r))
					h.Set("Access-Control-Max-Age", CORSMaxAge)
				}
			}
			if preflight {
				w.WriteHeader(http.StatusNoContent)
				return
			}
			next.ServeHTTP(w, r)
		})
	}
}

// knownHeaders are corsHeaders' names, for exact matching.
var knownHeaders = strings.Split(corsHeaders, ", ")

// allowHeaders echoes the requested headers only when they are ones the
// SDK is known to send. Each is compared with the known names whole (header
// names are case-insensitive): a fragment of one ("auth", "x-sdk") names
// another header, which the SDK never sends.
func allowHeaders(r *http.Request) string {
	req := r.Header.Get("Access-Control-Request-Headers")
	if req == "" {
		return corsHeaders
	}
	var out []string
	for _, h := range strings.Split(req, ",") {
		h = strings.TrimSpace(h)
		if slices.ContainsFunc(knownHeaders, func(k string) bool { return strings.EqualFold(k, h) }) {
			out = append(out, h)
		}
	}
	if len(out) == 0 {
		return corsHeaders
	}
	return strings.Join(out, ", ")
}
