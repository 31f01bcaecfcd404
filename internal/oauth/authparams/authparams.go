// Package authparams names the authorization request parameters this
// server sets itself when it sends a browser to an upstream provider: an
// OAuth login's provider (internal/oauth/providers) and an SSO
// connection's OIDC provider (internal/sso). Callers may pass further
// parameters through to the provider (provider_prompt, provider_login_hint
// ...), but never one of these, which carry the login's binding to its
// browser and to this server: where the code goes, how it comes back, and
// what proves the answer is the one asked for.
package authparams

// reserved are the parameters a pass-through cannot set, beyond the ones
// that name the login (state, nonce, PKCE, client, redirect URI, response
// type, scopes):
//   - response_mode: the callbacks read the code from a top-level GET's
//     query, which carries the SameSite=Lax binding cookie; form_post
//     would bring it back by a cross-site POST, which does not.
//   - request, request_uri: a request object (OIDC Core 6.1, RFC 9101)
//     takes precedence over the URL's parameters at a provider that
//     accepts unsigned ones, so it would override every name above from
//     inside one parameter.
var reserved = map[string]bool{
	"state": true, "nonce": true, "code_challenge": true, "code_challenge_method": true,
	"redirect_uri": true, "client_id": true, "response_type": true, "scope": true,
	"response_mode": true, "request": true, "request_uri": true,
}

// Reserved reports whether name is a parameter this server owns, which a
// caller's pass-through parameter must not set. Parameter names are
// case-sensitive (RFC 6749 3.1), as the providers read them.
func Reserved(name string) bool { return reserved[name] }
