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
// ended (empty when the relying party named no post-logout redirect URI:
// the widget then ends on its logged-out state), and whether the member
// must confirm first.
type LogoutResponse struct {
	httpapi.Common
	RedirectURI     string `json:"redirect_uri"`
	ConsentRequired bool   `json:"consent_required"`
}

// SDKLogoutStart handles SDK POST /b2b/oauth/logout/start (OIDC
// RP-Initiated Logout 1.0 2 and 3). Every parameter is optional there:
// the client is client_id or, without it, the id_token_hint's audience
// (both present must agree); a post-logout redirect URI needs a client
// and must be registered exactly for it. Confirmation is skipped only
// when a valid id_token_hint names the logged-in member; with no session
// there is nothing to confirm.
func (f Faces) SDKLogoutStart(r *http.Request) (any, error) {
	var req logoutRequest
	if err := httpapi.Decode(r, &req); err != nil {
		return nil, err
	}
	c := project.CallerFrom(r.Context())
	hint := &hintClaims{}
	if req.IDTokenHint != "" {
		var err error
		if hint, err = f.P.verifyIDTokenHint(r.Context(), c.Project.ID, req.ClientID, req.IDTokenHint); err != nil {
			return nil, err
		}
	}
	clientID := req.ClientID
	if clientID == "" {
		clientID = hint.clientID
	}
	if clientID == "" && req.PostLogoutRedirectURI != "" {
		return nil, apierr.Invalid("client_id", "client_id (or an id_token_hint) is required with a post_logout_redirect_uri.")
	}
	out := &LogoutResponse{}
	if clientID != "" {
		app, err := f.P.apps.Get(r.Context(), c.Project.ID, clientID)
		if err != nil {
			return nil, connectedapps.NotFound(err)
		}
		if req.PostLogoutRedirectURI != "" {
			if out.RedirectURI, err = postLogoutRedirect(app, req.PostLogoutRedirectURI, req.State); err != nil {
				return nil, err
			}
		}
	}
	if c.SessionToken != "" {
		who, err := f.sessionAuthorizer(r, c.Project, session.Credential{Token: c.SessionToken})
		if err != nil && !apierr.Is(err, apierr.SessionNotFound) {
			return nil, err
		}
		out.ConsentRequired = who != nil && who.member.MemberID != hint.subject
	}
	return out, nil
}

// postLogoutRedirect is where the browser returns after logout: the URI,
// registered exactly for the app, with the relying party's state.
func postLogoutRedirect(app *connectedapps.App, uri, state string) (string, error) {
	if !app.HasPostLogoutRedirectURL(uri) {
		return "", apierr.New(apierr.InvalidRedirectURI).WithMessage("The post_logout_redirect_uri does not exactly match a URL registered for this connected app.")
	}
	q := url.Values{}
	if state != "" {
		q.Set("state", state)
	}
	u, err := flowtoken.WithQuery(uri, q)
	if err != nil {
		return "", apierr.Wrap(apierr.InvalidRedirectURI, err)
	}
	return u, nil
}

// hintClaims are what a verified id_token_hint tells: whose token it is,
// and the client it was issued to.
type hintClaims struct {
	subject  string
	clientID string
}

// verifyIDTokenHint verifies an ID token this provider issued (expired
// ones included: a logout hint may be old). With clientID it must have
// been issued to that client; without, its audience names the client, so
// it must name exactly one.
func (p *Provider) verifyIDTokenHint(ctx context.Context, projectID, clientID, token string) (*hintClaims, error) {
	bad := apierr.Invalid("id_token_hint", "id_token_hint is not an ID token issued to this client.")
	parsed, err := jwt.ParseSigned(token, []jose.SignatureAlgorithm{jose.RS256})
	if err != nil || len(parsed.Headers) != 1 {
		return nil, bad
	}
	pub, err := p.publicKey(ctx, projectID, parsed.Headers[0].KeyID)
	if err != nil {
		return nil, err
	}
	var c jwt.Claims
	if pub == nil || parsed.Claims(pub, &c) != nil || c.Issuer != p.Issuer(projectID) {
		return nil, bad
	}
	switch {
	case clientID != "" && !c.Audience.Contains(clientID):
		return nil, bad
	case clientID == "" && len(c.Audience) != 1:
		return nil, apierr.Invalid("client_id", "client_id is required: the id_token_hint does not name a single client.")
	case clientID == "":
		clientID = c.Audience[0]
	}
	return &hintClaims{subject: c.Subject, clientID: clientID}, nil
}
