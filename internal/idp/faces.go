package idp

import (
	"context"
	"net/http"
	"strings"

	"github.com/latchkey/latchkey/internal/apierr"
	"github.com/latchkey/latchkey/internal/httpapi"
	"github.com/latchkey/latchkey/internal/organization"
	"github.com/latchkey/latchkey/internal/project"
	"github.com/latchkey/latchkey/internal/ratelimit"
	"github.com/latchkey/latchkey/internal/session"
)

// Faces serve authorize and logout on the SDK face (the widget, acting
// for the logged-in member) and the backend face (the customer's server,
// naming the member or their session).
type Faces struct {
	P        *Provider
	Sessions *session.Service
	Limiter  *ratelimit.Limiter
}

// sessionAuthorizer authenticates a session (token or JWT) the client
// presents, through session.Service.Check: a stale one counts against the
// client's address like a failed session check.
func (f Faces) sessionAuthorizer(r *http.Request, p *project.Project, cred session.Credential) (*authorizer, error) {
	out, err := f.Sessions.Check(r.Context(), p, httpapi.ClientIP(r), cred, nil)
	if err != nil {
		return nil, err
	}
	return &authorizer{member: out.Member, org: out.Organization, roles: out.MemberSession.Roles,
		authTime: authTimeOf(out.MemberSession), impersonated: out.MemberSession.Impersonated(),
		lineage: out.MemberSession.Lineage()}, nil
}

// authorizeStep is one step of the provider (start or submit) for an
// authorizer; who is nil when the widget has no session under prompt=none.
type authorizeStep[T any] func(ctx context.Context, projectID string, req *AuthorizeRequest, who *authorizer) (T, error)

// runAuthorize is every authorize route: decode the relying party's
// request, resolve who authorizes it on this face, and run the step.
func runAuthorize[T any](r *http.Request, resolve func(*http.Request, *AuthorizeRequest) (*authorizer, error), step authorizeStep[T]) (*authorizer, T, error) {
	var zero T
	var req AuthorizeRequest
	if err := httpapi.Decode(r, &req); err != nil {
		return nil, zero, err
	}
	who, err := resolve(r, &req)
	if err != nil {
		return nil, zero, err
	}
	out, err := step(r.Context(), project.CallerFrom(r.Context()).Project.ID, &req, who)
	return who, out, err
}

// sdkCaller is the widget's member. Without a session, prompt=none has no
// authorizer (nil: the provider answers login_required to the client);
// anything else is user_unauthenticated.
func (f Faces) sdkCaller(r *http.Request, req *AuthorizeRequest) (*authorizer, error) {
	c := project.CallerFrom(r.Context())
	if c.SessionToken == "" {
		if req.promptNone() {
			return nil, nil
		}
		return nil, apierr.New(apierr.UserUnauthenticated)
	}
	return f.sessionOrNone(r, c.Project, req, session.Credential{Token: c.SessionToken})
}

// sessionOrNone is sessionAuthorizer for authorize start and submit,
// except that under prompt=none an expired or revoked session is treated
// as no session (nil): the client must get login_required at its
// redirect URI (OIDC Core 3.1.2.6), not a page error it never sees. start
// and submit still validate the client and the redirect URI before
// answering it. A refusal by the failure limit stays an error.
//
// An impersonated session authorizes no connected app: an operator's
// visit lasts an hour at most (session package), the app's refresh
// tokens would outlive it, and a full_access grant would mint ordinary
// sessions from it. Under prompt=none it counts as no session; otherwise
// it is refused. It may still log out (logout.go).
func (f Faces) sessionOrNone(r *http.Request, p *project.Project, req *AuthorizeRequest, cred session.Credential) (*authorizer, error) {
	who, err := f.sessionAuthorizer(r, p, cred)
	switch {
	case err != nil && req.promptNone() && (apierr.Is(err, apierr.SessionNotFound) || apierr.Is(err, apierr.UnableToParseSessionJWT)):
		return nil, nil
	case err == nil && who.impersonated && req.promptNone():
		return nil, nil
	case err == nil && who.impersonated:
		return nil, apierr.New(apierr.UnauthorizedAction).WithMessage(
			"An impersonated session cannot authorize a connected app.")
	}
	return who, err
}

// promptNone reports whether the request forbids any screen (OIDC Core
// 3.1.2.1 prompt=none). It runs before anything is authenticated but the
// public token, so it only scans: a prompt over maxPromptBytes is no
// valid prompt=none (prepare refuses it once there is a session), and
// is not read.
func (req *AuthorizeRequest) promptNone() bool {
	if len(req.Prompt) > maxPromptBytes {
		return false
	}
	for f := range strings.FieldsSeq(req.Prompt) {
		if f == "none" {
			return true
		}
	}
	return false
}

// SDKStartResponse answers SDK authorize/start.
type SDKStartResponse struct {
	httpapi.Common
	StartResult
}

// SDKStart handles SDK POST /idp/b2b/oauth/authorize/start.
func (f Faces) SDKStart(r *http.Request) (any, error) {
	_, res, err := runAuthorize(r, f.sdkCaller, f.P.start)
	if err != nil {
		return nil, err
	}
	return &SDKStartResponse{StartResult: *res}, nil
}

// SubmitResponse answers authorize/submit (SDK) and authorize (backend).
type SubmitResponse struct {
	httpapi.Common
	SubmitResult
}

// SDKSubmit handles SDK POST /idp/b2b/oauth/authorize/submit.
func (f Faces) SDKSubmit(r *http.Request) (any, error) {
	_, res, err := runAuthorize(r, f.sdkCaller, f.P.submit)
	if err != nil {
		return nil, err
	}
	return &SubmitResponse{SubmitResult: *res}, nil
}

// backendCaller resolves the member the customer's backend names: a
// session (token or JWT), or organization_id with member_id.
func (f Faces) backendCaller(r *http.Request, req *AuthorizeRequest) (*authorizer, error) {
	p := project.CallerFrom(r.Context()).Project
	if req.SessionToken != "" || req.SessionJWT != "" {
		return f.sessionOrNone(r, p, req, session.Credential{Token: req.SessionToken, JWT: req.SessionJWT})
	}
	if req.OrganizationID == "" || req.MemberID == "" {
		return nil, apierr.Invalid("member_id", "Name the member: session_token, session_jwt, or organization_id with member_id.")
	}
	org, err := f.P.orgs.Get(r.Context(), p.ID, req.OrganizationID)
	if err != nil {
		return nil, organization.NotFound(err, apierr.OrganizationNotFound)
	}
	m, err := f.P.orgs.OrgMember(r.Context(), f.P.db.Read(), org, req.MemberID)
	if err != nil {
		return nil, organization.NotFound(err, apierr.MemberNotFound)
	}
	if m.Status != organization.StatusActive {
		return nil, apierr.New(apierr.InactiveMember)
	}
	// The backend vouches for the member now: this is the authentication time.
	return &authorizer{member: m, org: org, roles: m.RoleIDs(), authTime: f.P.clock.Now()}, nil
}

// BackendStartResponse answers backend authorize/start.
type BackendStartResponse struct {
	httpapi.Common
	MemberID     string                     `json:"member_id"`
	Member       *organization.Member       `json:"member"`
	Organization *organization.Organization `json:"organization"`
	StartResult
}

// BackendStart handles POST /v1/b2b/idp/oauth/authorize/start.
func (f Faces) BackendStart(r *http.Request) (any, error) {
	who, res, err := runAuthorize(r, f.backendCaller, f.P.start)
	if err != nil {
		return nil, err
	}
	return &BackendStartResponse{MemberID: who.member.MemberID, Member: who.member, Organization: who.org, StartResult: *res}, nil
}

// BackendAuthorize handles POST /v1/b2b/idp/oauth/authorize.
func (f Faces) BackendAuthorize(r *http.Request) (any, error) {
	_, res, err := runAuthorize(r, f.backendCaller, f.P.submit)
	if err != nil {
		return nil, err
	}
	return &SubmitResponse{SubmitResult: *res}, nil
}
