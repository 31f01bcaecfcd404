package app

import (
	"context"
	"fmt"

	"github.com/latchkey/latchkey/internal/idp"
	"github.com/latchkey/latchkey/internal/organization"
	"github.com/latchkey/latchkey/internal/project"
	"github.com/latchkey/latchkey/internal/session"
)

// memberSessions gives the organization and invite routes the session
// service as an organization.Sessions. The session package imports
// organization, so the bridge between them lives in the composition root.
type memberSessions struct {
	sessions *session.Service
	// apps is the identity provider, whose tokens and consent a deleted
	// member loses with their sessions (see RevokeMemberSessions). Every
	// copy given to code that deletes members needs it: the organization
	// routes' (routes.go) and SCIM's (wireModules), whose deactivation and
	// DELETE /Users go through Orgs.DeleteMember. The other copies (the
	// identity provider's own, SSO's, the Admin Portal's) only resolve
	// sessions.
	apps *idp.Module
}

// SessionMember authenticates a caller's session token or JWT (the SDK
// caller's, or a backend call's member session header) under the same
// per-address failure limit as sessions/authenticate. The roles are the
// session's own, as sessions/authenticate reports them.
func (m memberSessions) SessionMember(ctx context.Context, p *project.Project, clientIP string, cred organization.SessionCredential) (*organization.AuthenticatedSession, error) {
	out, err := m.sessions.Check(ctx, p, clientIP, session.Credential{Token: cred.Token, JWT: cred.JWT}, nil)
	if err != nil {
		return nil, err
	}
	return &organization.AuthenticatedSession{Member: out.Member, Roles: out.MemberSession.Roles,
		FactorTimes: out.MemberSession.FactorTimes()}, nil
}

// RevokeMemberSessions ends every session of the member. The organization
// routes and SCIM call it when they delete a member, so it also ends the member's
// connected-app tokens and consent at once: the sweeper would remove them
// only minutes later, and a member reactivated before it ran would get
// them back.
func (m memberSessions) RevokeMemberSessions(ctx context.Context, p *project.Project, memberID string) error {
	if err := m.sessions.Revoke(ctx, p, session.RevokeTarget{MemberID: memberID}); err != nil {
		return err
	}
	if m.apps == nil {
		return nil
	}
	if err := m.apps.RevokeMember(ctx, p.ID, memberID); err != nil {
		return fmt.Errorf("app: revoke member's connected apps: %w", err)
	}
	return nil
}
