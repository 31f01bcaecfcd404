package organization

import (
	"context"
	"errors"
	"slices"

	"github.com/latchkey/latchkey/internal/store"
)

// ConnectionSessions ends a member's sessions by the SSO connection they
// logged in through (the session service).
type ConnectionSessions interface {
	// EndConnectionSessions ends, inside q, the member's live sessions
	// that hold an SSO factor of one of connectionIDs.
	EndConnectionSessions(ctx context.Context, q store.Querier, projectID, memberID string, connectionIDs []string) error
}

// UseConnectionSessions connects the store to the session service for
// endRoleSessions. The composition root calls it once, before serving.
func (s *Store) UseConnectionSessions(c ConnectionSessions) { s.connSessions = c }

// endRoleSessions applies the API family's rule for a roles change that
// takes an explicit role away from member m (explicit roles before the
// change: before) who still holds it through an SSO connection or one of
// its groups: m's sessions with an SSO factor of that connection end,
// inside q, unless preserve (preserve_existing_sessions). Such a session
// keeps the role through the connection (SessionRoles), so without this
// the removal would change nothing for it; ending it makes the member log
// in through the connection again, which records their groups anew.
// Sessions of other logins lose the role at their next check anyway.
func (s *Store) endRoleSessions(ctx context.Context, q store.Querier, before []string, m *Member, preserve bool) error {
	if preserve {
		return nil
	}
	removed := slices.DeleteFunc(slices.Clone(before), func(r string) bool { return slices.Contains(m.explicit, r) })
	connections := m.ssoConnectionsGranting(removed)
	if len(connections) == 0 {
		return nil
	}
	if s.connSessions == nil {
		// Not wired: refusing beats keeping sessions the rule ends.
		return errors.New("organization: no session service to end the member's SSO sessions")
	}
	return s.connSessions.EndConnectionSessions(ctx, q, m.projectID, m.MemberID, connections)
}

// ssoConnectionsGranting lists the SSO connections through which m holds
// one of roles (a connection's or a group's assignment).
func (m *Member) ssoConnectionsGranting(roles []string) []string {
	var out []string
	for _, r := range m.Roles {
		if !slices.Contains(roles, r.RoleID) {
			continue
		}
		for _, src := range r.Sources {
			id, _ := src.Details["connection_id"].(string)
			if (src.Type == SourceSSOConnection || src.Type == SourceSSOGroup) && id != "" && !slices.Contains(out, id) {
				out = append(out, id)
			}
		}
	}
	return out
}
