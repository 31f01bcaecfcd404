package idp

import (
	"context"
	"net/http"
	"net/url"

	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"

	"github.com/latchkey/latchkey/internal/apierr"
	"github.com/latchkey/latchkey/internal/compactjws"
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
// RP-Initiated Logout 1.0 2 and 3). client_id and post_logout_redirect_uri
// are required, as the widget always sends them (end_session fills them
// in when the relying party left them out). The redirect URI must be
// registered exactly for the client, or be the provider's own logged-out
// page. An id_token_hint must have been issued to the client.
// Confirmation is skipped only when a valid id_token_hint was issued in
// the current session (its sid is the session's, sessionSID, which a
// step-up keeps): a hint from another session of the same member, one
// since revoked or logged out, does not show that the relying party's
// logout is the member's current wish (RP-Initiated Logout 1.0 2), nor
// does one from the session an exchange into another organization left
// (another member, another lineage), nor does an ID token without sid
// (issued before the claim, or authorized by a backend naming the member
// without a session). With no session there is nothing to confirm.
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
	// The provider's own logged-out page is every client's (end_session
	// names it when the relying party named no redirect URI).
	ownPage := req.PostLogoutRedirectURI == f.P.loggedOutURL(c.Project.ID)
	if !ownPage && !app.HasPostLogoutRedirectURL(req.PostLogoutRedirectURI) {
		return nil, apierr.New(apierr.InvalidRedirectURI).WithMessage("The post_logout_redirect_uri does not exactly match a URL registered for this connected app.")
	}
	hint := &hintClaims{}
	if req.IDTokenHint != "" {
		if hint, err = f.P.verifyIDTokenHint(r.Context(), c.Project.ID, app.ClientID, req.IDTokenHint); err != nil {
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
		out.ConsentRequired = who != nil && !hint.issuedIn(who)
	}
	return out, nil
}

// hintClaims are what a verified id_token_hint tells: whose token it is,
// the session it was authorized in (sid, "" when it has none), and the
// client it was issued to.
type hintClaims struct {
	subject  string
	sid      string
	clientID string
}

// issuedIn reports whether the hint is an ID token of who's session: the
// same member, and the session's sid.
func (h *hintClaims) issuedIn(who *authorizer) bool {
	return h.sid != "" && h.subject == who.member.MemberID && h.sid == sessionSID(who.lineage)
}

// verifyIDTokenHint verifies an ID token this provider issued (expired
// ones included: a logout hint may be old). With clientID it must have
// been issued to that client; without (end_session, where client_id is
// optional), its audience names the client, so it must name exactly one.
func (p *Provider) verifyIDTokenHint(ctx context.Context, projectID, clientID, token string) (*hintClaims, error) {
	bad := apierr.Invalid("id_token_hint", "id_token_hint is not an ID token issued to this client.")
	if compactjws.Check(token) != nil { // one spelling per token, as everywhere
		return nil, bad
	}
	parsed, err := jwt.ParseSigned(token, []jose.SignatureAlgorithm{jose.RS256})
	if err != nil || len(parsed.Headers) != 1 {
		return nil, bad
	}
	pub, err := p.publicKey(ctx, projectID, parsed.Headers[0].KeyID)
	if err != nil {
		return nil, err
	}
	var c jwt.Claims
	var extra struct {
		SID string `json:"sid"`
	}
	if pub == nil || parsed.Claims(pub, &c, &extra) != nil || c.Issuer != p.Issuer(projectID) {
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
	return &hintClaims{subject: c.Subject, sid: extra.SID, clientID: clientID}, nil
}
