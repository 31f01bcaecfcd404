package magiclink

import (
	"context"

	"github.com/latchkey/latchkey/internal/store"
)

// AuthenticateSteps splits an Authenticate of p (no held session, an
// hour's session) into its two steps inside the caller's transactions,
// for the external tests that hold the first open (storetest.Interleave):
// spend redeems the link, complete logs its member in.
func (s *Service) AuthenticateSteps(ctx context.Context, p AuthParams) (spend, complete func(q store.Querier) error) {
	var l *redeemed
	spend = func(q store.Querier) (err error) {
		l, err = s.redeem(ctx, q, p)
		return err
	}
	complete = func(q store.Querier) error {
		_, err := s.complete(ctx, q, p, l, 60, nil)
		return err
	}
	return spend, complete
}

// Spend is the spend of a link's redemption alone, for the tests of what
// it re-checks (a link that expired since it was read).
func (s *Service) Spend(ctx context.Context, q store.Querier, id string) error {
	return s.spend(ctx, q, id)
}
