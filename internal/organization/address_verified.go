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
// login completes: the access itself (UnprovenAccess), and what it may
// have obtained as the member since (MemberAccessEnder).
type UnprovenAccess interface {
	// AddressVerified ends, inside q, what v's member holds without proof
	// of v.Email, and reports whether there was any.
	AddressVerified(ctx context.Context, q store.Querier, v Verified) (ended bool, err error)
}

// MemberAccessEnder ends, inside q, everything the member holds that a
// login as the member may have started: sessions and logins in progress
// (session.Service.EndMember), connected-app tokens and consent (idp),
// MFA factors (mfa.Service.EndUnprovenFactors).
type MemberAccessEnder func(ctx context.Context, q store.Querier, projectID, memberID string) error

// AddUnprovenAccess registers modules, while wiring, before serving; a
// module left out keeps its unproven access after the owner proves the
// address.
func (s *Store) AddUnprovenAccess(u ...UnprovenAccess) { s.unproven = append(s.unproven, u...) }

// AddMemberAccessEnder registers, while wiring, before serving, what runs
// once when a first proof ended unproven access: whoever came in without
// the proof may have started sessions or been granted connected-app
// tokens as the member, and deleting the way in would not end them. A
// module left out keeps them working for that person.
func (s *Store) AddMemberAccessEnder(f ...MemberAccessEnder) { s.enders = append(s.enders, f...) }

// addressVerified tells every UnprovenAccess, inside q, that the member's
// address was just proven; when any of them ended something, every
// MemberAccessEnder runs once, in q, and it reports so.
func (s *Store) addressVerified(ctx context.Context, q store.Querier, m *Member) (bool, error) {
	v := Verified{ProjectID: m.ProjectID(), OrganizationID: m.OrganizationID, MemberID: m.MemberID, Email: m.EmailAddress}
	endedAny := false
	for _, u := range s.unproven {
		ended, err := u.AddressVerified(ctx, q, v)
		if err != nil {
			return false, err
		}
		endedAny = endedAny || ended
	}
	if !endedAny {
		return false, nil
	}
	for _, end := range s.enders {
		if err := end(ctx, q, v.ProjectID, v.MemberID); err != nil {
			return false, err
		}
	}
	// An ender may have written the member's row (the MFA module removes
	// the factors): the caller goes on with m, so it is read again, or the
	// owner's login would answer, and send codes, by the removed factors.
	fresh, err := s.Member(ctx, q, v.ProjectID, v.MemberID)
	if err != nil {
		return false, err
	}
	*m = *fresh
	return true, nil
}
