package session

import (
	"context"
	"fmt"

	"github.com/latchkey/latchkey/internal/organization"
	"github.com/latchkey/latchkey/internal/store"
)

// ReleaseAddress ends, inside q, the sessions and logins in progress of a
// member whose address changed or who was reactivated after a deletion
// (organization.AddressHolder).
//
// A session's factors were completed by whoever held the old address, and
// some speak for the address in every organization: a password login lets
// the session set the address's project-wide password (session/reset). An
// admin who points a member at someone else's address must not keep a
// session that now speaks for that address. An IST names the member too
// and would otherwise turn into such a session after the change, so the
// member's live ones are spent as well.
//
// The revocation is an UPDATE of member_sessions, a watched table: the
// change feed drops the cached session on this process before its next
// check and on every other within a second (see hotCache).
func (s *Service) ReleaseAddress(ctx context.Context, q store.Querier, r organization.Released) error {
	if err := s.RevokeMemberTx(ctx, q, r.ProjectID, r.MemberID); err != nil {
		return err
	}
	// ISTs live IntermediateLifetime: the live ones are a few minutes of
	// logins, found through the expiry index rather than an index on
	// member_id that every MFA login would pay for.
	now := store.Millis(s.clock.Now())
	if _, err := q.ExecContext(ctx, `UPDATE intermediate_sessions SET used_at = $1
		WHERE expires_at > $1 AND project_id = $2 AND member_id = $3 AND used_at IS NULL`, now, r.ProjectID, r.MemberID); err != nil {
		return fmt.Errorf("session: spend intermediate sessions of %s: %w", r.MemberID, err)
	}
	return nil
}
