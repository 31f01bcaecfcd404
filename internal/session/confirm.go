package session

import (
	"context"
	"errors"

	"github.com/latchkey/latchkey/internal/apierr"
	"github.com/latchkey/latchkey/internal/organization"
	"github.com/latchkey/latchkey/internal/store"
)

// confirmMember holds, inside the login transaction q, the row of the
// member a login completes for (organization.LockMember) and refuses the
// login when the member is no longer what the login read as m: deleted
// (then or since), or now at another address.
//
// The read that decides a login often happens before its transaction (a
// password login reads the member, then hashes for a while) or, on
// PostgreSQL, in it but before a concurrent change commits. An address
// change ends the member's sessions and ISTs in its own transaction
// (organization.AddressHolder), and a session or IST inserted after that
// statement, or not yet committed when it ran, would survive it, speaking
// for an address whose holder never logged in. With the row held, either
// the change waits for this login to commit and then ends what it
// created, or the login waits for the change and is refused here. A
// deletion is refused alike (its revocation follows it), and so is a
// member read while deleted and reactivated since: the reactivation ended
// what the deleted member held (organization.SetMemberStatus).
func (s *Service) confirmMember(ctx context.Context, q store.Querier, projectID string, m *organization.Member) error {
	email, status, err := s.orgs.LockMember(ctx, q, projectID, m.MemberID)
	if errors.Is(err, store.ErrNotFound) {
		return apierr.Wrap(apierr.MemberNotFound, err)
	}
	if err != nil {
		return err
	}
	if status == organization.StatusDeleted || m.Status == organization.StatusDeleted {
		return apierr.New(apierr.InactiveMember)
	}
	if email != m.EmailAddress {
		return addressChanged()
	}
	return nil
}

// addressChanged answers a login whose member's address changed while it
// was in progress: the member it proved is no longer at that address.
func addressChanged() *apierr.Error {
	return apierr.New(apierr.MemberNotFound).WithMessage(
		"The member's email address changed while this login was in progress; log in again.")
}
