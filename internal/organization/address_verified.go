package organization

import (
	"context"

	"github.com/latchkey/latchkey/internal/store"
)

// Verified names a member whose address was just proven for the first
// time (MarkEmailVerified found it unverified).
type Verified struct {
	ProjectID      string
	OrganizationID string
	MemberID       string
	Email          string
}

// UnprovenAccess is a module that may let a person in as a member without
// proof of the member's address: an OAuth account an organization admits
// by its tenant alone, whose provider did not verify the address it gave.
//
// Such a person may have given someone else's address before its owner
// became a member (a pre-account takeover). When the address is proven
// another way, the proof belongs to the address's owner, and whatever came
// in without it must end, in the same transaction, before the owner's
// login completes: the access itself, and the sessions and logins in
// progress it may have started as the member.
type UnprovenAccess interface {
	// AddressVerified ends, inside q, what v's member holds without proof
	// of v.Email, with the member's sessions and ISTs when there was any,
	// and reports whether there was.
	AddressVerified(ctx context.Context, q store.Querier, v Verified) (ended bool, err error)
}

// AddUnprovenAccess registers modules, while wiring, before serving; a
// module left out keeps its unproven access after the owner proves the
// address.
func (s *Store) AddUnprovenAccess(u ...UnprovenAccess) { s.unproven = append(s.unproven, u...) }

// addressVerified tells every UnprovenAccess, inside q, that the member's
// address was just proven, and records on m whether any of them ended
// something (Member.UnprovenAccessEnded).
func (s *Store) addressVerified(ctx context.Context, q store.Querier, m *Member) error {
	v := Verified{ProjectID: m.ProjectID(), OrganizationID: m.OrganizationID, MemberID: m.MemberID, Email: m.EmailAddress}
	for _, u := range s.unproven {
		ended, err := u.AddressVerified(ctx, q, v)
		if err != nil {
			return err
		}
		m.unprovenEnded = m.unprovenEnded || ended
	}
	return nil
}
