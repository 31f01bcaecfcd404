package session

import (
	"context"

	"github.com/latchkey/latchkey/internal/store"
)

// SpendIntermediate is the spend of RedeemIntermediate alone, for the
// external tests of what it re-checks (an IST that expired since it was
// read).
func (s *Service) SpendIntermediate(ctx context.Context, q store.Querier, id string) error {
	return s.spendIntermediate(ctx, q, id)
}
