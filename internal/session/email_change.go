package session

import (
	"context"
	"fmt"

	"github.com/latchkey/latchkey/internal/store"
)

// CompleteEmailChange finishes a redeemed email-update link or code inside
// the caller's transaction. l.Member is the member whose address changes
// and email the new address the secret was sent to (and so is now proven):
// the member's address becomes email and the old one is retired, every
// existing session of the member ends (they were started by whoever
// controlled the old address), and the login then completes as any email
// login with the new address.
//
// A session the caller holds (l.From) must be the member's at the address
// being changed; its factors then join the new address's session, as the
// member proved both. The new session also keeps the held one's lineage
// (MemberSession.Lineage), as any step-up does: it is the same holder
// continuing the same session, not one of the sessions the old address's
// holder may have started elsewhere, which all end here with their
// lineages. The lineage only says which provider session a relying
// party's ID token came from (its sid); what the old address granted is
// released by its own rule (the IdP's ReleaseAddress), not by the sid.
func (s *Service) CompleteEmailChange(ctx context.Context, q store.Querier, l EmailLogin, email string) (*AuthResponse, error) {
	// Another member's session is left for stepUp to refuse.
	same := l.From != nil && l.From.Member.MemberID == l.Member.MemberID
	if same && l.From.Member.EmailAddress != l.Member.EmailAddress {
		return nil, addressChanged()
	}
	// The held session is ended first, and only if the database still
	// holds it live (EndHeld): every other session of the member ends
	// next, so Complete is told it is already ended (fromEnded).
	if same {
		if err := s.EndHeld(ctx, q, l.Project.ID, l.From.MemberSession.MemberSessionID); err != nil {
			return nil, err
		}
	}
	m, err := s.orgs.ChangeEmail(ctx, q, l.Organization, l.Project.Env, l.Member.MemberID, email)
	if err != nil {
		return nil, err
	}
	if err := s.RevokeMemberTx(ctx, q, l.Project.ID, m.MemberID); err != nil {
		return nil, err
	}
	if same {
		from := *l.From
		from.Member = m
		l.From, l.fromEnded = &from, true
	}
	l.Member = m
	return s.CompleteEmail(ctx, q, l)
}

// RevokeMemberTx ends every live session of a member inside the caller's
// transaction.
func (s *Service) RevokeMemberTx(ctx context.Context, q store.Querier, projectID, memberID string) error {
	if _, err := q.ExecContext(ctx, `UPDATE member_sessions SET revoked_at = $1 WHERE project_id = $2 AND member_id = $3
		AND revoked_at IS NULL`, store.Millis(s.clock.Now()), projectID, memberID); err != nil {
		return fmt.Errorf("session: revoke member sessions: %w", err)
	}
	return nil
}
