package idp

import (
	"errors"
	"net/http"
	"slices"
	"strings"

	"github.com/latchkey/latchkey/internal/organization"
)

// UserInfo handles GET and POST {issuer}/oauth2/userinfo (OIDC Core 5.3)
// with a bearer access token (RFC 6750 2.1) that includes openid.
// Its token errors carry the RFC 6750 3 challenge, the 403 for a token
// without openid too (error="insufficient_scope", naming the scope).
func (p *Provider) UserInfo(w http.ResponseWriter, r *http.Request) {
	out, err := p.userInfo(r)
	var oe *oauthError
	if errors.As(err, &oe) && (oe.status == http.StatusUnauthorized || oe.status == http.StatusForbidden) {
		challenge := `Bearer error="` + oe.code + `", error_description="` + oe.desc + `"`
		switch {
		case oe == errNoBearer:
			// A request without a bearer token gets the bare challenge
			// (RFC 6750 3.1: no error code when no credentials were sent).
			challenge = `Bearer realm="latchkey"`
		case oe.code == "insufficient_scope":
			challenge += `, scope="` + ScopeOpenID + `"`
		}
		w.Header().Set("WWW-Authenticate", challenge)
		writeOAuth(w, r, 0, nil, oe)
		return
	}
	writeOAuth(w, r, http.StatusOK, out, p.logged(r, err))
}

// errNoBearer answers a userinfo request that carries no bearer token.
var errNoBearer = &oauthError{401, "invalid_token", "A bearer access token is required."}

func (p *Provider) userInfo(r *http.Request) (any, error) {
	pr, err := p.projectOf(r)
	if err != nil {
		return nil, err
	}
	token, ok := bearerToken(r.Header.Get("Authorization"))
	if !ok {
		return nil, errNoBearer
	}
	// What the token would carry if used now, as introspection reports
	// it (usableNow): a member no longer active, an app the organization
	// no longer allows, or a consent that no longer covers the token's
	// scopes (a family can outlive its consent) make it invalid, and the
	// claims follow the scopes still held, not those it was issued with.
	c, row, err := p.checkSigned(r.Context(), pr.ID, token)
	var o *organization.Organization
	var scopes []string
	if err == nil {
		o, scopes, err = p.usableNow(r.Context(), pr.ID, row)
	}
	if errors.Is(err, errNoToken) {
		return nil, &oauthError{401, "invalid_token", "The access token is invalid, expired or revoked."}
	}
	if err != nil {
		return nil, err
	}
	if !slices.Contains(scopes, ScopeOpenID) {
		return nil, &oauthError{403, "insufficient_scope", "The access token lacks the openid scope."}
	}
	m, err := p.orgs.Member(r.Context(), p.db.Read(), pr.ID, c.Subject)
	if err != nil {
		return nil, &oauthError{401, "invalid_token", "The member no longer exists."}
	}
	out := memberClaims(m, o, scopes)
	out["sub"] = m.MemberID
	return out, nil
}

// bearerToken reads an Authorization header of the Bearer scheme (RFC 6750
// 2.1), whose name is case-insensitive (RFC 7235 2.1): "bearer x" and
// "BEARER x" are as good as "Bearer x".
func bearerToken(header string) (string, bool) {
	scheme, token, ok := strings.Cut(header, " ")
	token = strings.TrimLeft(token, " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") || token == "" {
		return "", false
	}
	return token, true
}
