package organization

import (
	"context"

	"github.com/latchkey/latchkey/internal/audit"
	"github.com/latchkey/latchkey/internal/httpapi"
	"github.com/latchkey/latchkey/internal/store"
)

// EmailUpdated is the factor change (audit.FactorChange) recorded when a
// member's address actually changes (ChangeEmail), the end of what the
// start route records as email_update_started: without it the log could
// not say when an address changed, nor from what to what.
const EmailUpdated = "email_updated"

// recordEmailChange files, in q, m's change from its current address to
// email. Addresses are no secret; the code or link that proved the new one
// is not recorded.
func (s *Store) recordEmailChange(ctx context.Context, q store.Querier, org *Organization, m *Member, email string) error {
	if s.audit == nil {
		return nil
	}
	ip, ua := httpapi.Client(ctx)
	return s.audit.RecordIn(ctx, q, audit.Event{ProjectID: org.projectID, Type: audit.FactorChange, Method: EmailUpdated,
		OrganizationID: org.OrganizationID, MemberID: m.MemberID, IP: ip, UserAgent: ua, RequestID: httpapi.RequestID(ctx),
		Details: map[string]any{"old_email_address": m.EmailAddress, "new_email_address": email}})
}
