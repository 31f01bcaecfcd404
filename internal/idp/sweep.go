package idp

import (
	"context"
	"fmt"
	"time"

	"github.com/latchkey/latchkey/internal/organization"
	"github.com/latchkey/latchkey/internal/store"
	"github.com/latchkey/latchkey/internal/sweeper"
)

// tokenGrace is how long an expired token row is kept. Past its expiry a
// token is refused whatever its row says (a spent refresh token presented
// late is already just invalid, never a reuse signal), so the row only
// serves log reading.
const tokenGrace = 24 * time.Hour

// Sweeps lists the provider's rows that outlive their use (app.Sweeper
// runs them): expired access and refresh tokens, and the consent and
// tokens of members who were deleted. A deleted member's consent must not
// come back if they are reactivated, as their sessions do not. Codes are
// flow tickets, swept with the other tickets.
func (m *Module) Sweeps() []sweeper.Sweepable {
	return []sweeper.Sweepable{
		sweeper.Expired{DB: m.d.DB, Table: "idp_tokens", Key: "token_hash", Column: "expires_at", Keep: tokenGrace},
		sweeper.Func{Label: "idp_deleted_members", Fn: m.sweepDeletedMembers},
	}
}

// sweepDeletedMembers deletes the grants and tokens of deleted members.
func (m *Module) sweepDeletedMembers(ctx context.Context) error {
	for _, table := range []string{"idp_grants", "idp_tokens"} {
		_, err := m.d.DB.ExecContext(ctx, `DELETE FROM `+table+` WHERE member_id IN
			(SELECT member_id FROM members WHERE status = $1)`, organization.StatusDeleted)
		if err != nil {
			return fmt.Errorf("idp: sweep %s of deleted members: %w", table, store.MapError(err))
		}
	}
	return nil
}
