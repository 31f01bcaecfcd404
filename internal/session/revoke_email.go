package session

import (
	"context"
	"fmt"

	"github.com/latchkey/latchkey/internal/store"
)

// EndForEmail ends, inside the caller's transaction, every live session of
// the project's members with this email address, except keep ("" keeps
// none), and every live IST of the address: its discovery logins and its
// members' logins stopped at MFA or primary_required. A password change
// calls it: whoever held a session, or a login in progress, through the
// old password loses it, as an address change ends them (ReleaseAddress).
// A caller that carries an IST's factors into its own outcome reads them
// first (PriorFactors).
func (s *Service) EndForEmail(ctx context.Context, q store.Querier, projectID, email, keep string) error {
	_, err := q.ExecContext(ctx, `UPDATE member_sessions SET revoked_at = $1 WHERE project_id = $2 AND revoked_at IS NULL
		AND member_session_id <> $3 AND member_id IN (SELECT member_id FROM members WHERE project_id = $2 AND email_address = $4)`,
		store.Millis(s.clock.Now()), projectID, keep, email)
	if err != nil {
		return fmt.Errorf("session: revoke for email: %w", err)
	}
	return s.spendIntermediates(ctx, q, projectID, ofAddress, email)
}
