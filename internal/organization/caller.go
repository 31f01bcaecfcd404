package organization

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"time"

	"github.com/latchkey/latchkey/internal/apierr"
	"github.com/latchkey/latchkey/internal/httpapi"
	"github.com/latchkey/latchkey/internal/project"
	"github.com/latchkey/latchkey/internal/stepup"
)

// Sessions is what the member-facing routes need from member sessions. The
// session package imports this one, so the app wires an adapter over the
// session service.
type Sessions interface {
	// SessionMember resolves a session of project p to its (active) member,
	// the roles the session carries and the times its factors were last
	// completed (for step-up). Failed lookups count against the client's
	// address.
	SessionMember(ctx context.Context, p *project.Project, clientIP string, cred SessionCredential) (*AuthenticatedSession, error)
	// RevokeMemberSessions ends every session of a member.
	RevokeMemberSessions(ctx context.Context, p *project.Project, memberID string) error
}

// SessionCredential is a member session as a caller presents it: its
// token or its JWT (the token wins when both are sent).
type SessionCredential struct {
	Token string
	JWT   string
}

// AuthenticatedSession is a member session that authenticated.
type AuthenticatedSession struct {
	Member *Member
	// Roles are the roles the session carries (Member.SessionRoles), not
	// every role of the member: a role held only through an SSO connection
	// counts only for a session that logged in through it, so authorizing
	// by the member's roles would let any login use it.
	Roles []string
	// FactorTimes are when the session's factors were last completed.
	FactorTimes []time.Time
}

// SessionCaller is a caller acting in one organization: on the SDK face
// the member behind the session token sent as the Basic-auth password; on
// the backend face the project secret (Member nil, every right) or, when
// the call carries a member session header, that member.
type SessionCaller struct {
	Project      *project.Project
	Member       *Member // nil for the project secret
	Organization *Organization
	Roles        []string // the roles the session carries
	rbac         RBAC
	// FactorTimes are when the session's factors were last completed, and
	// now the time of the request, for StepUp.
	FactorTimes []time.Time
	now         time.Time
}

// Actor is who acts, as the audit events of a change name them: the API
// face ("backend" or "sdk") and the member whose session acted (empty for
// the project secret).
type Actor struct {
	Face     string
	MemberID string
}

// ActorOf is c acting on the SDK face (sdk) or on the backend face.
func ActorOf(c *SessionCaller, sdk bool) Actor {
	a := Actor{Face: "backend"}
	if sdk {
		a.Face = "sdk"
	}
	if c.Member != nil {
		a.MemberID = c.Member.MemberID
	}
	return a
}

// StepUp refuses a takeover-sensitive change (session_too_old) unless the
// session completed a factor within stepup.Window.
func (c *SessionCaller) StepUp() error { return stepup.Require(c.now, c.FactorTimes...) }

// CallerFromSession resolves the SDK caller's session. A caller without a
// session is user_unauthenticated, which the SDK treats as logged out.
//
// Any active member (every session belongs to one) may read their own
// organization and themselves; everything else is authorized by the
// project's RBAC policy through Authorize and AuthorizeMember.
func CallerFromSession(r *http.Request, st *Store, sessions Sessions) (*SessionCaller, error) {
	c := project.CallerFrom(r.Context())
	if c.SessionToken == "" {
		return nil, apierr.New(apierr.UserUnauthenticated)
	}
	s, err := sessions.SessionMember(r.Context(), c.Project, httpapi.ClientIP(r), SessionCredential{Token: c.SessionToken})
	if err != nil {
		return nil, err
	}
	o, err := st.Get(r.Context(), c.Project.ID, s.Member.OrganizationID)
	if err != nil {
		// Only an organization that is gone ends the session: SDKs and the
		// widget take session_not_found for logged out, and a database
		// error is the server's (500), not the session's.
		return nil, NotFound(err, apierr.SessionNotFound)
	}
	return st.sessionCaller(r.Context(), c.Project, o, s), nil
}

// sessionCaller is the caller acting with session s in organization o. The
// request of ctx is then known to act as s's member, which the audit log
// names as the author of the change it makes (httpapi.SetActingMember).
func (st *Store) sessionCaller(ctx context.Context, p *project.Project, o *Organization, s *AuthenticatedSession) *SessionCaller {
	httpapi.SetActingMember(ctx, o.OrganizationID, s.Member.MemberID)
	return &SessionCaller{Project: p, Member: s.Member, Organization: o, Roles: s.Roles, rbac: st.rbac,
		FactorTimes: s.FactorTimes, now: st.clock.Now()}
}

// Authorize refuses (unauthorized_action) unless the caller's roles permit
// action on resource in their organization. Without RBAC wired nothing is
// permitted.
func (c *SessionCaller) Authorize(ctx context.Context, resource, action string) error {
	if c.Member == nil {
		return nil // the project secret
	}
	if c.rbac == nil {
		return apierr.New(apierr.UnauthorizedAction)
	}
	return c.rbac.Authorize(ctx, c.Project, c.Organization, c.Roles, resource, action)
}

// AuthorizeMember authorizes action on member memberID of the caller's
// organization: on stytch.member, or, when the member is the caller and
// stytch.self has the action, on stytch.self as well (the API family's
// rule for members acting on themselves). Actions only stytch.member has
// (roles, break-glass, create, search) never pass through stytch.self, so
// its wildcard cannot make a member their own administrator.
func (c *SessionCaller) AuthorizeMember(ctx context.Context, memberID, action string) error {
	if c.Member == nil {
		return nil // the project secret
	}
	if memberID == c.Member.MemberID && slices.Contains(SelfActions, action) && c.Authorize(ctx, ResourceSelf, action) == nil {
		return nil
	}
	return c.Authorize(ctx, ResourceMember, action)
}

// AuthorizeMemberAll is AuthorizeMember for every action.
func (c *SessionCaller) AuthorizeMemberAll(ctx context.Context, memberID string, actions []string) error {
	for _, a := range actions {
		if err := c.AuthorizeMember(ctx, memberID, a); err != nil {
			return err
		}
	}
	return nil
}

// invalidRole is the refusal of a role id the policy does not define.
func invalidRole(field, id string) error {
	return apierr.Invalid(field, fmt.Sprintf("Role %q is not defined in this project's RBAC policy or the organization's custom roles.", id))
}
