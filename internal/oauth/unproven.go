package oauth

import (
	"context"
	"fmt"

	"github.com/latchkey/latchkey/internal/audit"
	"github.com/latchkey/latchkey/internal/httpapi"
	"github.com/latchkey/latchkey/internal/organization"
	"github.com/latchkey/latchkey/internal/store"
)

// RegistrationRemoved is the factor change (audit.FactorChange) recorded
// for each registration AddressVerified deletes.
const RegistrationRemoved = "oauth_registration_removed"

// AddressVerified deletes, inside q, the member's OAuth registrations that
// never proved the member's address (organization.UnprovenAccess): their
// provider accounts were admitted by their tenant alone, with an address
// the provider did not verify, and the address has now been proven by
// its owner. Whoever registered them may have given someone else's
// address; they no longer open the member. Each deletion is recorded in
// the audit log.
//
// When it deletes any it reports so, and the organization store ends the
// member's sessions, ISTs and connected-app tokens in q
// (organization.MemberAccessEnder): a registration that opened the member
// may have started them, and deleting it would not stop what its holder
// already has. That runs before the owner's login issues anything, so the
// owner's own session is not among them, and the login answers
// reset_sessions (session.CompleteParams.SessionsEnded).
func (m *Module) AddressVerified(ctx context.Context, q store.Querier, v organization.Verified) (bool, error) {
	rows, err := q.QueryContext(ctx, `DELETE FROM member_oauth_registrations WHERE member_id = $1 AND email_verified = $2
		RETURNING registration_id, provider, provider_subject`, v.MemberID, false)
	if err != nil {
		return false, fmt.Errorf("oauth: remove unproven registrations: %w", err)
	}
	type removed struct{ id, provider, subject string }
	var gone []removed
	for rows.Next() {
		var r removed
		if err := rows.Scan(&r.id, &r.provider, &r.subject); err != nil {
			rows.Close()
			return false, fmt.Errorf("oauth: remove unproven registrations: %w", err)
		}
		gone = append(gone, r)
	}
	// Closed before the writes that follow: on SQLite they share the writer.
	rows.Close()
	if err := rows.Err(); err != nil {
		return false, fmt.Errorf("oauth: remove unproven registrations: %w", err)
	}
	if len(gone) == 0 {
		return false, nil
	}
	if m.d.Audit == nil {
		return true, nil
	}
	for _, r := range gone {
		if err := m.d.Audit.RecordIn(ctx, q, audit.Event{ProjectID: v.ProjectID, Type: audit.FactorChange,
			Method: RegistrationRemoved, OrganizationID: v.OrganizationID, MemberID: v.MemberID,
			RequestID: httpapi.RequestID(ctx), Details: map[string]any{"registration_id": r.id, "provider": r.provider,
				"provider_subject": r.subject, "reason": "email_verified_without_provider"}}); err != nil {
			return false, err
		}
	}
	return true, nil
}
