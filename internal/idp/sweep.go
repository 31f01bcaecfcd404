package idp

import (
	"fmt"
	"time"

	"github.com/latchkey/latchkey/internal/organization"
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
// flow tickets, swept with the other tickets. Like every sweep, the
// deleted members' rows go in batches (sweeper.Batch), so a large backlog
// never holds the writer in one statement.
func (m *Module) Sweeps() []sweeper.Sweepable {
	return []sweeper.Sweepable{
		sweeper.Expired{DB: m.d.DB, Table: "idp_tokens", Key: "token_hash", Column: "expires_at", Keep: tokenGrace},
		sweeper.Expired{DB: m.d.DB, Table: "idp_grants", Key: "member_id, client_id", Where: ofDeletedMembers,
			Label: "idp_grants_of_deleted_members"},
		sweeper.Expired{DB: m.d.DB, Table: "idp_tokens", Key: "token_hash", Where: ofDeletedMembers,
			Label: "idp_tokens_of_deleted_members"},
	}
}

// ofDeletedMembers selects the rows of members whose status is deleted.
var ofDeletedMembers = fmt.Sprintf("member_id IN (SELECT member_id FROM members WHERE status = '%s')", organization.StatusDeleted)
