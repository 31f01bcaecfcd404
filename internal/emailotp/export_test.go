package emailotp

import (
	"context"

	"github.com/latchkey/latchkey/internal/organization"
	"github.com/latchkey/latchkey/internal/store"
)

// LoginSteps splits a login by p's code, of the member of org at email,
// into its two steps inside the caller's transactions (an hour's session),
// for the external tests that hold the first open (storetest.Interleave):
// spend checks and spends the code, complete logs its member in.
func (s *Service) LoginSteps(ctx context.Context, p AuthParams, org *organization.Organization,
	email string) (spend, complete func(q store.Querier) error) {
	var m *organization.Member
	spend = func(q store.Querier) (err error) {
		m, err = s.spendLogin(ctx, q, p, org, email)
		return err
	}
	complete = func(q store.Querier) error {
		_, err := s.completeLogin(ctx, q, p, org, m, 60)
		return err
	}
	return spend, complete
}

// Hash exposes Codes.hash to the external tests.
func (c Codes) Hash(salt, code string) (string, bool) { return c.hash(salt, code) }
