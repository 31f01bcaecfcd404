package session

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	"github.com/latchkey/latchkey/internal/apierr"
	"github.com/latchkey/latchkey/internal/httpapi"
	"github.com/latchkey/latchkey/internal/organization"
	"github.com/latchkey/latchkey/internal/project"
	"github.com/latchkey/latchkey/internal/store"
)

// authorizeRevoke decides a backend revoke that acts for a member session
// (the Node client's method_options.authorization): the sessions revoked
// must belong to a member of the acting member's organization, and the
// acting member's roles must permit revoke-sessions on them (stytch.self
// for their own, stytch.member for anyone's). Without the header the
// project secret may revoke anything.
func (h Handlers) authorizeRevoke(r *http.Request, p *project.Project, t RevokeTarget) error {
	cred, acting := organization.MemberSessionOf(r)
	if !acting {
		return nil
	}
	actor, err := h.authenticate(r, p, Credential{Token: cred.Token, JWT: cred.JWT}, nil)
	if err != nil {
		return err
	}
	httpapi.SetActingMember(r.Context(), actor.Organization.OrganizationID, actor.Member.MemberID)
	memberID, orgID, err := h.Sessions.revokeOwner(r.Context(), p, t)
	if err != nil {
		return err
	}
	if orgID != actor.Organization.OrganizationID {
		return apierr.New(apierr.TenancyMismatch)
	}
	return h.mayRevoke(r.Context(), p, actor, memberID)
}

// mayRevoke applies the RBAC rule for ending memberID's sessions (a member
// of the actor's organization): revoke-sessions on stytch.self for one's
// own, on stytch.member for anyone's.
func (h Handlers) mayRevoke(ctx context.Context, p *project.Project, actor *SessionResponse, memberID string) error {
	check := func(resource string) error {
		_, err := h.Authz.Check(ctx, p.ID, actor.Organization, actor.MemberSession.Roles, resource, organization.ActionRevokeSessions)
		return err
	}
	if memberID == actor.Member.MemberID && check(organization.ResourceSelf) == nil {
		return nil
	}
	return check(organization.ResourceMember)
}

// SDKRevokeForMember handles SDK POST /b2b/sessions/revoke/{member_id}
// (session.revokeForMember): every session of a member of the caller's
// organization ends. Authorized as the backend's revoke by member_id acting
// for a member, and in the order of the SDK's other member routes: the
// permission first, then the member, so a caller without it learns
// nothing about which ids exist; a member of another organization is not
// found, as for every SDK member route.
func (h Handlers) SDKRevokeForMember(r *http.Request) (any, error) {
	if err := decodeNoFields(r); err != nil {
		return nil, err
	}
	ctx, c := r.Context(), project.CallerFrom(r.Context())
	if c.SessionToken == "" {
		return nil, apierr.New(apierr.UserUnauthenticated)
	}
	actor, err := h.authenticate(r, c.Project, Credential{Token: c.SessionToken}, nil)
	if err != nil {
		return nil, err
	}
	httpapi.SetActingMember(ctx, actor.Organization.OrganizationID, actor.Member.MemberID)
	memberID := r.PathValue("member_id")
	if err := h.mayRevoke(ctx, c.Project, actor, memberID); err != nil {
		return nil, err
	}
	m, err := h.Sessions.orgs.OrgMember(ctx, h.Sessions.db.Read(), actor.Organization, memberID)
	if err != nil {
		return nil, err
	}
	if err := h.Sessions.Revoke(ctx, c.Project, RevokeTarget{MemberID: m.MemberID}); err != nil {
		return nil, err
	}
	httpapi.NoteSubject(ctx, httpapi.Subject{OrganizationID: m.OrganizationID, MemberID: m.MemberID})
	return &httpapi.Common{}, nil
}

// revokeOwner names the member (and organization) whose sessions a revoke
// target designates.
func (s *Service) revokeOwner(ctx context.Context, p *project.Project, t RevokeTarget) (memberID, orgID string, err error) {
	q := s.db.Read()
	if t.MemberID != "" && t.SessionID == "" && t.Token == "" && t.JWT == "" {
		m, err := s.orgs.Member(ctx, q, p.ID, t.MemberID)
		if err != nil {
			return "", "", organization.NotFound(err, apierr.MemberNotFound)
		}
		return m.MemberID, m.OrganizationID, nil
	}
	where, arg, err := s.revokeMatch(ctx, p.ID, t, s.clock.Now(), 2)
	if err != nil {
		return "", "", err
	}
	err = q.QueryRowContext(ctx, `SELECT member_id, organization_id FROM member_sessions WHERE project_id = $1 AND `+where,
		p.ID, arg).Scan(&memberID, &orgID)
	if err = store.MapError(err); errors.Is(err, store.ErrNotFound) {
		return "", "", apierr.Wrap(apierr.SessionNotFound, err)
	}
	if err != nil {
		return "", "", fmt.Errorf("session: revoke owner: %w", err)
	}
	return memberID, orgID, nil
}
