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
	return s.EndMember(ctx, q, r.ProjectID, r.MemberID)
}

// EndMember ends, inside q, every live session of the member and spends
// every live IST that names them (logins stopped at MFA or
// primary_required), so that neither outlives q's change to the member:
// an address change (ReleaseAddress), or a first proof of the address
// that ended access which came in without one (registered as an
// organization.MemberAccessEnder; CompleteParams.SessionsEnded). Like
// ReleaseAddress, it reaches other replicas' caches through the change
// feed.
func (s *Service) EndMember(ctx context.Context, q store.Querier, projectID, memberID string) error {
	if err := s.RevokeMemberTx(ctx, q, projectID, memberID); err != nil {
		return err
	}
	return s.spendIntermediates(ctx, q, projectID, ofMember, memberID)
}

// istOwner is the statement that spends the live ISTs of one kind of
// owner (whole, so the query-plan test sees it). ISTs live
// IntermediateLifetime: the live ones are a few minutes of logins, found
// through the expiry index rather than an index on member_id or
// email_address that every login would pay for.
type istOwner string

const (
	// ofMember: a member's logins stopped at MFA or primary_required.
	ofMember istOwner = `UPDATE intermediate_sessions SET used_at = $1
		WHERE expires_at > $1 AND project_id = $2 AND member_id = $3 AND used_at IS NULL`
	// ofAddress: those of every member with the address, and its
	// discovery logins.
	ofAddress istOwner = `UPDATE intermediate_sessions SET used_at = $1
		WHERE expires_at > $1 AND project_id = $2 AND email_address = $3 AND used_at IS NULL`
)

// spendIntermediates spends, inside q, the project's live ISTs of owner
// (a member id or an email address, as by says).
func (s *Service) spendIntermediates(ctx context.Context, q store.Querier, projectID string, by istOwner, owner string) error {
	if _, err := q.ExecContext(ctx, string(by), store.Millis(s.clock.Now()), projectID, owner); err != nil {
		return fmt.Errorf("session: spend intermediate sessions: %w", err)
	}
	return nil
}
