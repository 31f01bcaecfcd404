package idp

import (
	"context"
	"net/http"
	"net/url"

	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"

	"github.com/latchkey/latchkey/internal/apierr"
	"github.com/latchkey/latchkey/internal/connectedapps"
	"github.com/latchkey/latchkey/internal/flowtoken"
	"github.com/latchkey/latchkey/internal/httpapi"
	"github.com/latchkey/latchkey/internal/project"
	"github.com/latchkey/latchkey/internal/session"
)

type logoutRequest struct {
	ClientID              string `json:"client_id"`
	PostLogoutRedirectURI string `json:"post_logout_redirect_uri"`
	IDTokenHint           string `json:"id_token_hint"`
	State                 string `json:"state"`
}

// LogoutResponse answers logout/start: where to go after the session is
// ended, and whether the member must confirm first.
type LogoutResponse struct {
	httpapi.Common
	RedirectURI     string `json:"redirect_uri"`
	ConsentRequired bool   `json:"consent_required"`
}

// SDKLogoutStart handles SDK POST /b2b/oauth/logout/start (OIDC
// RP-Initiated Logout 1.0 2 and 3): the post-logout redirect URI must be
// registered exactly for the client. Confirmation is skipped only when a
// valid id_token_hint names the logged-in member; with no session there is
// nothing to confirm.
func (f Faces) SDKLogoutStart(r *http.Request) (any, error) {
	var req logoutRequest
	if err := httpapi.Decode(r, &req); err != nil {
		return nil, err
	}
	if err := httpapi.Required("client_id", req.ClientID); err != nil {
		return nil, err
	}
	if err := httpapi.Required("post_logout_redirect_uri", req.PostLogoutRedirectURI); err != nil {
		return nil, err
	}
	c := project.CallerFrom(r.Context())
	app, err := f.P.apps.Get(r.Context(), c.Project.ID, req.ClientID)
	if err != nil {
		return nil, connectedapps.NotFound(err)
	}
	if !app.HasPostLogoutRedirectURL(req.PostLogoutRedirectURI) {
		return nil, apierr.New(apierr.InvalidRedirectURI).WithMessage("The post_logout_redirect_uri does not exactly match a URL registered for this connected app.")
	}
	hintSub := ""
	if req.IDTokenHint != "" {
		if hintSub, err = f.P.idTokenSubject(r.Context(), c.Project.ID, app.ClientID, req.IDTokenHint); err != nil {
			return nil, err
		}
	}
	q := url.Values{}
	if req.State != "" {
		q.Set("state", req.State)
	}
	u, err := flowtoken.WithQuery(req.PostLogoutRedirectURI, q)
	if err != nil {
		return nil, apierr.Wrap(apierr.InvalidRedirectURI, err)
	}
	out := &LogoutResponse{RedirectURI: u}
	if c.SessionToken != "" {
		who, err := f.sessionAuthorizer(r, c.Project, session.Credential{Token: c.SessionToken})
		if err != nil && !apierr.Is(err, apierr.SessionNotFound) {
			return nil, err
		}
		out.ConsentRequired = who != nil && who.member.MemberID != hintSub
	}
	return out, nil
}

// idTokenSubject verifies an ID token this provider issued to clientID
// (expired ones included: a logout hint may be old) and returns its sub.
func (p *Provider) idTokenSubject(ctx context.Context, projectID, clientID, token string) (string, error) {
	bad := apierr.Invalid("id_token_hint", "id_token_hint is not an ID token issued to this client.")
	parsed, err := jwt.ParseSigned(token, []jose.SignatureAlgorithm{jose.RS256})
	if err != nil || len(parsed.Headers) != 1 {
		return "", bad
	}
	pub, err := p.publicKey(ctx, projectID, parsed.Headers[0].KeyID)
	if err != nil {
		return "", err
	}
	var c jwt.Claims
	if pub == nil || parsed.Claims(pub, &c) != nil || c.Issuer != p.Issuer(projectID) || !c.Audience.Contains(clientID) {
		return "", bad
	}
	return c.Subject, nil
}
