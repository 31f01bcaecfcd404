package organization

import (
	"context"

	"github.com/latchkey/latchkey/internal/store"
)

// Released names a member who no longer holds what they had through an
// email address: their address changed (Email is the old one), or they
// were reactivated after a deletion (Email is their address).
type Released struct {
	ProjectID string
	MemberID  string
	Email     string
}

// AddressHolder is a module that keeps something a member holds through
// their email address: a secret emailed to it (login and invite links,
// email codes, reset tokens) or a session whose factors name it.
//
// An admin may change a member's address without proof. Whatever the old
// address earned must end then: a link or code sent to it would otherwise
// verify the new address and log in with an email factor for it, which
// other organizations trust, and a session would keep speaking for a
// member who now has someone else's address. Reactivating a deleted member
// ends them too, so that the reactivation does not revive them.
type AddressHolder interface {
	// ReleaseAddress ends, inside q, what r's member holds through r.Email.
	ReleaseAddress(ctx context.Context, q store.Querier, r Released) error
}

// AddAddressHolder registers holders. The composition root calls it once,
// before serving; every module that keeps such secrets or sessions must be
// registered, or an address change leaves them working.
func (s *Store) AddAddressHolder(h ...AddressHolder) { s.holders = append(s.holders, h...) }

// release tells every holder, inside the transaction q that changes the
// member, that the member no longer holds the address.
func (s *Store) release(ctx context.Context, q store.Querier, r Released) error {
	for _, h := range s.holders {
		if err := h.ReleaseAddress(ctx, q, r); err != nil {
			return err
		}
	}
	return nil
}

// addressLeft is release for a member whose address changed from r.Email,
// inside the transaction q that changed it, and then, the member row no
// longer holding r.Email, the removal hooks for it: an address an admin
// moved a member away from keeps nothing (its password) once no member
// row holds it, as when its last row is removed. A retired address is the
// member's in its organization only to keep others from taking it there;
// it logs nobody in, and the password would otherwise pass to the next
// member given the address in any organization of the project.
//
// The removal hooks run first: they lock the address's password, and its
// attempt counters, before release ends the member's sessions, the order
// every password flow takes them in (member, password, counters,
// sessions). The other way round, a reset of the address's password by a
// member of another organization, ending the address's sessions (this
// member's among them until the change commits), and this change would
// each wait for a row the other holds.
func (s *Store) addressLeft(ctx context.Context, q store.Querier, r Released) error {
	if err := s.membersRemoved(ctx, q, r.ProjectID, []string{r.Email}); err != nil {
		return err
	}
	return s.release(ctx, q, r)
}
