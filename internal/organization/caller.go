package organization

import (
	"context"
	"net/http"
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
	// SessionMember resolves a session token of project p to its (active)
	// member, with the times the session's factors were last completed
	// (for step-up). Failed lookups count against the client's address.
	SessionMember(ctx context.Context, p *project.Project, clientIP, token string) (*Member, []time.Time, error)
	// RevokeMemberSessions ends every session of a member.
	RevokeMemberSessions(ctx context.Context, p *project.Project, memberID string) error
}

// SessionCaller is a logged-in SDK caller: the member behind the session
// token sent as the Basic-auth password, and that member's organization.
type SessionCaller struct {
	Project      *project.Project
	Member       *Member
	Organization *Organization
	// FactorTimes are when the session's factors were last completed, and
	// now the time of the request, for StepUp.
	FactorTimes []time.Time
	now         time.Time
}

// StepUp refuses a takeover-sensitive change (session_too_old) unless the
// session completed a factor within stepup.Window.
func (c *SessionCaller) StepUp() error { return stepup.Require(c.now, c.FactorTimes...) }

// CallerFromSession resolves the SDK caller's session. A caller without a
// session is user_unauthenticated, which the SDK treats as logged out.
//
// Authorization until RBAC arrives: any active member (every session
// belongs to one) may read their own organization and themselves; changing
// the organization or other members needs is_admin (see RequireAdmin).
func CallerFromSession(r *http.Request, st *Store, sessions Sessions) (*SessionCaller, error) {
	c := project.CallerFrom(r.Context())
	if c.SessionToken == "" {
		return nil, apierr.New(apierr.UserUnauthenticated)
	}
	m, factors, err := sessions.SessionMember(r.Context(), c.Project, httpapi.ClientIP(r), c.SessionToken)
	if err != nil {
		return nil, err
	}
	o, err := st.Get(r.Context(), c.Project.ID, m.OrganizationID)
	if err != nil {
		return nil, apierr.Wrap(apierr.SessionNotFound, err)
	}
	return &SessionCaller{Project: c.Project, Member: m, Organization: o, FactorTimes: factors, now: st.clock.Now()}, nil
}

// RequireAdmin refuses callers who are not admins of their organization.
func (c *SessionCaller) RequireAdmin() error {
	if !c.Member.IsAdmin {
		return apierr.New(apierr.UnauthorizedAction).WithMessage("Only an admin of the organization may do this.")
	}
	return nil
}

// ActOn allows acting on member memberID of the caller's organization:
// anyone may act on themselves, only admins on others.
func (c *SessionCaller) ActOn(memberID string) error {
	if memberID == c.Member.MemberID {
		return nil
	}
	return c.RequireAdmin()
}

// RolesToAdmin maps a roles list of a member create or update onto the
// current role model: stytch_member is implicit and stytch_admin is the
// is_admin flag. Other roles need RBAC, which does not exist yet, so they
// are refused rather than silently dropped.
func RolesToAdmin(roles *[]string) (*bool, error) {
	if roles == nil {
		return nil, nil
	}
	admin := false
	for _, r := range *roles {
		switch r {
		case DefaultRole:
		case AdminRole:
			admin = true
		default:
			return nil, apierr.Invalid("roles", "Only the stytch_member and stytch_admin roles exist in this project.")
		}
	}
	return &admin, nil
}

// adminFlag combines an explicit is_admin with a roles list; they must not
// contradict each other.
func adminFlag(isAdmin *bool, roles *[]string) (*bool, error) {
	fromRoles, err := RolesToAdmin(roles)
	if err != nil {
		return nil, err
	}
	if isAdmin != nil && fromRoles != nil && *isAdmin != *fromRoles {
		return nil, apierr.Invalid("roles", "is_admin and roles disagree about stytch_admin.")
	}
	if isAdmin != nil {
		return isAdmin, nil
	}
	return fromRoles, nil
}
