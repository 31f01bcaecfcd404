package idp

import (
	"errors"
	"net/http"
	"strings"

	"github.com/latchkey/latchkey/internal/httpapi"
	"github.com/latchkey/latchkey/internal/ids"
	"github.com/latchkey/latchkey/internal/store"
)

// Introspect handles POST {issuer}/oauth2/introspect (RFC 7662). The
// caller authenticates as a connected app of the project; an unknown,
// expired or revoked token, one whose member is no longer active, one
// whose organization no longer allows its app, or one whose consent no
// longer covers it, is {"active": false}. The scope answered is the one
// the token would carry if used now (usableNow), which may be narrower
// than the one it was issued with. A public client's inactive answers
// count against its address (PublicTokenFailuresPerIP).
func (p *Provider) Introspect(w http.ResponseWriter, r *http.Request) {
	out, err := p.introspect(r)
	writeOAuth(w, r, http.StatusOK, out, p.logged(r, err))
}

func (p *Provider) introspect(r *http.Request) (any, error) {
	pr, err := p.projectOf(r)
	if err != nil {
		return nil, err
	}
	if err := parseForm(r); err != nil {
		return nil, err
	}
	app, err := p.authenticateClient(r, pr.ID, "introspect")
	if err != nil {
		return nil, err
	}
	token := r.PostForm.Get("token")
	if token == "" {
		return nil, invalidRequest("token is required.")
	}
	common := map[string]any{"request_id": httpapi.RequestID(r.Context()), "status_code": http.StatusOK}
	err = p.guardPublic(r, pr.ID, app, func() error { return p.inspect(r, pr.ID, token, common) },
		func(err error) bool { return errors.Is(err, errInactive) })
	if errors.Is(err, errInactive) {
		common["active"] = false
		return common, nil
	}
	if err != nil {
		return nil, err
	}
	return common, nil
}

// errInactive is inspect's answer for a token that is not active: an
// answer, not an error, but for a public client a failure to count
// (guardPublic).
var errInactive = errors.New("idp: token not active")

// inspect fills common with what token is, or answers errInactive.
func (p *Provider) inspect(r *http.Request, projectID, token string, common map[string]any) error {
	if strings.Count(token, ".") == 2 {
		c, row, err := p.checkSigned(r.Context(), projectID, token)
		if errors.Is(err, errNoToken) {
			return errInactive
		}
		if err != nil {
			return err
		}
		_, scopes, err := p.usableNow(r.Context(), projectID, row)
		if errors.Is(err, errNoToken) {
			return errInactive
		}
		if err != nil {
			return err
		}
		aud := any(c.Audience)
		if len(c.Audience) == 1 {
			aud = c.Audience[0]
		}
		for k, v := range map[string]any{"active": true, "sub": c.Subject, "scope": strings.Join(scopes, " "), "aud": aud,
			"exp": c.Expiry.Time().Unix(), "iat": c.IssuedAt.Time().Unix(), "nbf": c.NotBefore.Time().Unix(),
			"iss": c.Issuer, "token_type": "access_token", "client_id": row.ClientID,
			"https://stytch.com/organization": c.Organization} {
			common[k] = v
		}
		return nil
	}
	row, err := p.loadToken(r.Context(), p.db.Read(), ids.Hash(token))
	if errors.Is(err, store.ErrNotFound) || (err == nil && (row.ProjectID != projectID || row.Kind != kindRefresh || row.Used || !row.active(p.clock.Now()))) {
		return errInactive
	}
	if err != nil {
		return err
	}
	// As /oauth2/token would use it now (issue): a refresh token that
	// cannot be used is not active, and its scope is the one the refresh
	// would issue.
	o, scopes, err := p.usableNow(r.Context(), projectID, row)
	if errors.Is(err, errNoToken) {
		return errInactive
	}
	if err != nil {
		return err
	}
	for k, v := range map[string]any{"active": true, "sub": row.MemberID, "scope": strings.Join(scopes, " "),
		"aud": projectID, "exp": row.ExpiresAt.Unix(), "iss": AccessTokenIssuer(projectID), "token_type": "refresh_token",
		"client_id": row.ClientID, "https://stytch.com/organization": orgClaim{OrganizationID: o.OrganizationID, Slug: o.OrganizationSlug}} {
		common[k] = v
	}
	return nil
}
