package flowtoken

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/latchkey/latchkey/internal/ids"
	"github.com/latchkey/latchkey/internal/store"
)

// Spend records a secret the flow did not issue but must accept only once
// (an ID token a browser presents, say) as used until until: a ticket
// born spent, of kind, in the tickets' own table. A second Spend of the
// same secret, on any replica, is refused with ErrInvalid, and Redeem
// never accepts it; Sweep removes it once until has passed. Only the
// secret's hash is kept.
//
// Spend runs its own statement, outside the caller's transaction: once
// presented, the secret is spent whatever happens next.
func (s *Store) Spend(ctx context.Context, kind Kind, projectID, secret string, until time.Time) error {
	if kind == "" || projectID == "" || secret == "" {
		return errors.New("flowtoken: spend: kind, project and secret are required")
	}
	now := s.clock.Now()
	if until.Before(now) {
		until = now
	}
	res, err := s.db.ExecContext(ctx, `INSERT INTO flow_tickets (ticket_hash, kind, project_id, data, created_at,
		expires_at, used_at) VALUES ($1,$2,$3,$4,$5,$6,$5) ON CONFLICT (ticket_hash) DO NOTHING`,
		ids.Hash(secret), string(kind), projectID, "null", store.Millis(now), store.Millis(until))
	if err != nil {
		return fmt.Errorf("flowtoken: spend %s: %w", kind, err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return fmt.Errorf("flowtoken: spend %s: %w", kind, err)
	}
	if n != 1 {
		return fmt.Errorf("flowtoken: spend %s: already spent: %w", kind, ErrInvalid)
	}
	return nil
}
