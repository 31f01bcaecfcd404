package sso

import (
	"context"
	"time"

	"github.com/latchkey/latchkey/internal/store"
)

// Hooks for the external tests that hold a change's transaction open
// (storetest.Overlap) to race another change against it.

// RenameIn renames a connection of kind of the organization inside q,
// through an administrator's change (changeTx).
func (s *Service) RenameIn(ctx context.Context, q store.Querier, projectID, orgID, connID, kind, name string) error {
	_, err := s.changeTx(ctx, q, changeTarget{projectID, orgID, connID, kind}, func(_ context.Context, c *conn) error {
		c.DisplayName = name
		return nil
	})
	return err
}

// RegisterIn registers the identity externalID of a connection of the
// organization to memberID inside q, as a first login does (register, then
// syncMember).
func (s *Service) RegisterIn(ctx context.Context, q store.Querier, projectID, orgID, connID, memberID, externalID string) error {
	c, err := s.load(ctx, q, projectID, orgID, connID)
	if err != nil {
		return err
	}
	if _, _, err := s.register(ctx, q, c, memberID, identity{ExternalID: externalID}); err != nil {
		return err
	}
	return s.syncMember(ctx, q, memberID)
}

// RememberAssertion records an assertion id of connection connID whose
// acceptance window ends at expires, as an accepted SAML response does.
func (s *Service) RememberAssertion(ctx context.Context, connID, assertionID string, expires time.Time) error {
	return s.rememberAssertion(ctx, connID, &samlResult{assertionID: assertionID, expires: expires})
}
