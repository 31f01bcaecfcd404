package idp

import (
	"errors"
	"net/http"
	"strings"

	"github.com/latchkey/latchkey/internal/ids"
	"github.com/latchkey/latchkey/internal/store"
)

// Revoke handles POST {issuer}/oauth2/revoke (RFC 7009). Revoking a
// refresh token revokes its whole family (the access tokens too);
// revoking an access token revokes that token; either whatever the
// member's status and the organization's policy are now. Unknown tokens
// (and other projects' tokens, which this issuer does not know) are
// answered 200 like successes (RFC 7009 2.2); a token of another client
// of the project is refused (RFC 7009 2.1) with unauthorized_client: the
// client is authenticated (not invalid_client) and its request well
// formed (not invalid_request), but it is not allowed to act on that
// token, and answering 200 would tell it the token was revoked when it
// was not.
func (p *Provider) Revoke(w http.ResponseWriter, r *http.Request) {
	err := p.revoke(r)
	writeOAuth(w, r, http.StatusOK, map[string]any{}, p.logged(r, err))
}

func (p *Provider) revoke(r *http.Request) error {
	pr, err := p.projectOf(r)
	if err != nil {
		return err
	}
	if err := parseForm(r); err != nil {
		return err
	}
	app, err := p.authenticateClient(r, pr.ID, "revoke")
	if err != nil {
		return err
	}
	token := r.PostForm.Get("token")
	if token == "" {
		return invalidRequest("token is required.")
	}
	hash := ids.Hash(token)
	if strings.Count(token, ".") == 2 {
		// The jti names the stored row; the signature is checked so that
		// nobody can revoke a token they merely know the jti of. Neither
		// the organization's policy nor the member's status is asked
		// (checkSigned): a token of an app the organization no longer
		// allows, or of a member who is not active now, is still revoked,
		// for good, or it would work again once either changed back.
		c, _, err := p.checkSigned(r.Context(), pr.ID, token)
		if errors.Is(err, errNoToken) {
			return nil
		}
		if err != nil {
			return err
		}
		hash = ids.Hash(c.ID)
	}
	row, err := p.loadToken(r.Context(), p.db.Read(), hash)
	if errors.Is(err, store.ErrNotFound) || (err == nil && row.ProjectID != pr.ID) {
		return nil
	}
	if err != nil {
		return err
	}
	if row.ClientID != app.ClientID {
		return unauthorizedClient("The token was issued to another client.")
	}
	if row.Kind == kindRefresh {
		return p.revokeFamily(r.Context(), p.db, row.FamilyID)
	}
	_, err = p.db.ExecContext(r.Context(), `UPDATE idp_tokens SET revoked_at = $1 WHERE token_hash = $2 AND revoked_at IS NULL`,
		store.Millis(p.clock.Now()), hash)
	return err
}
