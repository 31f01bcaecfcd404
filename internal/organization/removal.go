package organization

import (
	"context"
	"fmt"

	"github.com/latchkey/latchkey/internal/store"
)

// RemovalHook is told, inside the transaction that removed member rows for
// good (an organization's deletion, the purge of a deleted member who never
// verified their address) or moved one to another address, and after they
// are gone or moved, the addresses those rows held. A module keeping something for an email address of the
// project as long as the address has a member (the password, shared by the
// address's memberships in every organization) ends it for each address
// that no member row holds any more: otherwise it would pass to whoever is
// next given the address, in a re-created organization or a new one.
// A deleted member's row stays until it is purged, so it still holds its
// address (a reactivation gives back what the address had). A failing
// hook fails the removal.
type RemovalHook interface {
	MembersRemoved(ctx context.Context, q store.Querier, projectID string, emails []string) error
}

// AddRemovalHook registers hooks. The composition root calls it once,
// before serving.
func (s *Store) AddRemovalHook(h ...RemovalHook) { s.removal = append(s.removal, h...) }

// membersRemoved runs the removal hooks inside q for the addresses of the
// member rows q removed.
func (s *Store) membersRemoved(ctx context.Context, q store.Querier, projectID string, emails []string) error {
	if len(emails) == 0 {
		return nil
	}
	for _, h := range s.removal {
		if err := h.MembersRemoved(ctx, q, projectID, emails); err != nil {
			return err
		}
	}
	return nil
}

// orgAddresses are the distinct addresses of orgID's members, sorted, read
// inside q for its deletion. On PostgreSQL the organization's row is first
// locked FOR UPDATE, the lock its DELETE takes: a member insert's foreign
// key check (FOR KEY SHARE, which the deletion's earlier FOR NO KEY UPDATE
// lets through) then waits for the deletion, and one already running is
// waited for and its member read here. Without it a member added between
// this read and the DELETE would go with the organization unlisted, and
// its address keep what the hooks end. SQLite has one writer.
func (s *Store) orgAddresses(ctx context.Context, q store.Querier, orgID string) ([]string, error) {
	if s.db.Dialect() == store.Postgres {
		if _, err := q.ExecContext(ctx, `SELECT 1 FROM organizations WHERE organization_id = $1 FOR UPDATE`, orgID); err != nil {
			return nil, fmt.Errorf("organization: lock %s: %w", orgID, store.MapError(err))
		}
	}
	emails, err := store.Strings(ctx, q, `SELECT DISTINCT email_address FROM members WHERE organization_id = $1
		ORDER BY email_address`, orgID)
	if err != nil {
		return nil, fmt.Errorf("organization: addresses of %s: %w", orgID, err)
	}
	return emails, nil
}
