package organization

import (
	"context"
	"fmt"

	"github.com/latchkey/latchkey/internal/store"
)

// MemberDecorator fills member fields owned by a module (oauth_registrations,
// sso_registrations) on members loaded through q, in one query for the
// lot. byID holds the loaded members by member_id.
type MemberDecorator func(ctx context.Context, q store.Querier, byID map[string]*Member) error

// AddMemberDecorator installs a decorator. Modules call it at wiring time,
// before the server answers requests.
func (s *Store) AddMemberDecorator(d MemberDecorator) { s.decorators = append(s.decorators, d) }

// decorate completes members loaded through q: their retired addresses,
// then every module's fields. Every path that returns members ends here,
// so a member reads the same whichever route loaded it.
func (s *Store) decorate(ctx context.Context, q store.Querier, ms ...*Member) error {
	if len(ms) == 0 {
		return nil
	}
	if err := s.withRetired(ctx, q, ms...); err != nil {
		return err
	}
	if len(s.decorators) == 0 {
		return nil
	}
	byID := make(map[string]*Member, len(ms))
	for _, m := range ms {
		byID[m.MemberID] = m
	}
	for _, d := range s.decorators {
		if err := d(ctx, q, byID); err != nil {
			return fmt.Errorf("organization: decorate members: %w", err)
		}
	}
	return nil
}
