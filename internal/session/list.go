package session

import (
	"context"
	"fmt"
	"net/http"

	"github.com/latchkey/latchkey/internal/apierr"
	"github.com/latchkey/latchkey/internal/httpapi"
	"github.com/latchkey/latchkey/internal/organization"
	"github.com/latchkey/latchkey/internal/project"
	"github.com/latchkey/latchkey/internal/store"
)

// MemberSessionsResponse answers GET /v1/b2b/sessions (the Node client's
// B2BSessionsGetResponse).
type MemberSessionsResponse struct {
	httpapi.Common
	MemberSessions []MemberSession `json:"member_sessions"`
}

// BackendList handles GET /v1/b2b/sessions?organization_id=&member_id=
// (the Node client's sessions.get): the member's live sessions, newest
// first, each as sessions/authenticate would show it.
func (h Handlers) BackendList(r *http.Request) (any, error) {
	ctx, q := r.Context(), r.URL.Query()
	p := project.CallerFrom(ctx).Project
	orgID, memberID := q.Get("organization_id"), q.Get("member_id")
	if err := httpapi.Required("organization_id", orgID); err != nil {
		return nil, err
	}
	if err := httpapi.Required("member_id", memberID); err != nil {
		return nil, err
	}
	list, err := h.Sessions.MemberSessions(ctx, p, orgID, memberID)
	if err != nil {
		return nil, err
	}
	return &MemberSessionsResponse{MemberSessions: list}, nil
}

// MemberSessions lists the live sessions (neither revoked nor expired) of
// member memberID of organization orgID, newest first. A member who is
// not active has none: sessions/authenticate refuses each of them.
func (s *Service) MemberSessions(ctx context.Context, p *project.Project, orgID, memberID string) ([]MemberSession, error) {
	org, err := s.orgs.Get(ctx, p.ID, orgID)
	if err != nil {
		return nil, organization.NotFound(err, apierr.OrganizationNotFound)
	}
	q := s.db.Read()
	m, err := s.orgs.OrgMember(ctx, q, org, memberID)
	if err != nil {
		return nil, err
	}
	out := []MemberSession{}
	if m.Status != organization.StatusActive {
		return out, nil
	}
	rows, err := q.QueryContext(ctx, selectSession+`WHERE member_id = $1 AND project_id = $2 AND revoked_at IS NULL
		AND expires_at > $3 ORDER BY started_at DESC, member_session_id`, m.MemberID, p.ID, store.Millis(s.clock.Now()))
	if err != nil {
		return nil, fmt.Errorf("session: list: %w", err)
	}
	defer rows.Close()
	m = m.RolesIn(org)
	for rows.Next() {
		r, err := scanRow(rows)
		if err != nil {
			return nil, fmt.Errorf("session: list: %w", err)
		}
		r.ms.Roles, r.ms.OrganizationSlug = m.SessionRoles(ssoConnections(r.ms.AuthenticationFactors)), org.OrganizationSlug
		out = append(out, r.ms)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("session: list: %w", err)
	}
	return out, nil
}
