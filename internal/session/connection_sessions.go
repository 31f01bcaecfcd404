package session

import (
	"context"
	"fmt"
	"slices"

	"github.com/latchkey/latchkey/internal/organization"
	"github.com/latchkey/latchkey/internal/store"
)

var _ organization.ConnectionSessions = (*Service)(nil)

// EndConnectionSessions ends, inside q, the member's live sessions that
// hold an SAML or OIDC factor of one of connectionIDs
// (organization.ConnectionSessions: a roles change ends them). The
// factors are the stored wire shape, whose provider_id names the
// connection, so they are read and matched here rather than in SQL. The
// revocation is an UPDATE of member_sessions, a watched table: cached
// copies go as for any revocation.
func (s *Service) EndConnectionSessions(ctx context.Context, q store.Querier, projectID, memberID string, connectionIDs []string) error {
	now := store.Millis(s.clock.Now())
	rows, err := q.QueryContext(ctx, `SELECT member_session_id, authentication_factors FROM member_sessions
		WHERE project_id = $1 AND member_id = $2 AND revoked_at IS NULL AND expires_at > $3`, projectID, memberID, now)
	if err != nil {
		return fmt.Errorf("session: connection sessions: %w", err)
	}
	var ended []string
	for rows.Next() {
		var id, wire string
		if err := rows.Scan(&id, &wire); err != nil {
			rows.Close()
			return fmt.Errorf("session: connection sessions: %w", err)
		}
		factors, err := unmarshalFactors(wire)
		if err != nil {
			rows.Close()
			return fmt.Errorf("session: connection sessions: %w", err)
		}
		if slices.ContainsFunc(factors, func(f Factor) bool { return slices.Contains(connectionIDs, f.ssoConnectionID()) }) {
			ended = append(ended, id)
		}
	}
	if err := rows.Close(); err != nil {
		return fmt.Errorf("session: connection sessions: %w", err)
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("session: connection sessions: %w", err)
	}
	for _, id := range ended {
		if _, err := q.ExecContext(ctx, `UPDATE member_sessions SET revoked_at = $1 WHERE member_session_id = $2
			AND revoked_at IS NULL`, now, id); err != nil {
			return fmt.Errorf("session: end connection session: %w", err)
		}
		s.jwts.drop(id)
	}
	return nil
}
