package app

import (
	"context"

	"github.com/latchkey/latchkey/internal/apierr"
	"github.com/latchkey/latchkey/internal/organization"
	"github.com/latchkey/latchkey/internal/project"
	"github.com/latchkey/latchkey/internal/ratelimit"
	"github.com/latchkey/latchkey/internal/session"
)

// memberSessions gives the organization and invite routes the session
// service as an organization.Sessions. The session package imports
// organization, so the bridge between them lives in the composition root.
type memberSessions struct {
	sessions *session.Service
	limiter  *ratelimit.Limiter
}

// SessionMember authenticates an SDK caller's session token under the same
// per-address failure limit as sessions/authenticate.
func (m memberSessions) SessionMember(ctx context.Context, p *project.Project, clientIP, token string) (*organization.Member, error) {
	var out *session.SessionResponse
	err := m.limiter.GuardUnguessable(ctx, func() error {
		var err error
		out, err = m.sessions.Authenticate(ctx, p, session.Credential{Token: token}, nil)
		return err
	}, ratelimit.FailureOf(apierr.SessionNotFound), ratelimit.For(session.FailuresPerIP, p.ID+"|"+clientIP))
	if err != nil {
		return nil, err
	}
	return out.Member, nil
}

// RevokeMemberSessions ends every session of the member.
func (m memberSessions) RevokeMemberSessions(ctx context.Context, p *project.Project, memberID string) error {
	return m.sessions.Revoke(ctx, p, session.RevokeTarget{MemberID: memberID})
}
