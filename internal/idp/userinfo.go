package idp

import (
	"errors"
	"net/http"
	"strings"
)

// UserInfo handles GET and POST {issuer}/oauth2/userinfo (OIDC Core 5.3)
// with a bearer access token (RFC 6750 2.1) that includes openid.
func (p *Provider) UserInfo(w http.ResponseWriter, r *http.Request) {
	out, err := p.userInfo(r)
	if err != nil {
		var oe *oauthError
		if errors.As(err, &oe) && oe.status == http.StatusUnauthorized {
			w.Header().Set("WWW-Authenticate", `Bearer error="invalid_token", error_description="`+oe.desc+`"`)
			writeBearerError(w, oe)
			return
		}
	}
	writeOAuth(w, http.StatusOK, out, p.logged(r, err))
}

func writeBearerError(w http.ResponseWriter, oe *oauthError) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(oe.status)
	_, _ = w.Write([]byte(`{"error":"` + oe.code + `","error_description":"` + oe.desc + `"}` + "\n"))
}

func (p *Provider) userInfo(r *http.Request) (any, error) {
	pr, err := p.projectOf(r)
	if err != nil {
		return nil, err
	}
	auth := r.Header.Get("Authorization")
	token, ok := strings.CutPrefix(auth, "Bearer ")
	if !ok || token == "" {
		return nil, &oauthError{401, "invalid_token", "A bearer access token is required."}
	}
	c, row, err := p.verifyAccess(r.Context(), pr.ID, token)
	if errors.Is(err, errNoToken) {
		return nil, &oauthError{401, "invalid_token", "The access token is invalid, expired or revoked."}
	}
	if err != nil {
		return nil, err
	}
	if !row.has(ScopeOpenID) {
		return nil, &oauthError{403, "insufficient_scope", "The access token lacks the openid scope."}
	}
	m, err := p.orgs.Member(r.Context(), p.db.Read(), pr.ID, c.Subject)
	if err != nil {
		return nil, &oauthError{401, "invalid_token", "The member no longer exists."}
	}
	o, err := p.orgs.Get(r.Context(), pr.ID, m.OrganizationID)
	if err != nil {
		return nil, err
	}
	out := memberClaims(m, o, row.Scopes)
	out["sub"] = m.MemberID
	return out, nil
}
