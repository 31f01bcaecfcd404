package sso

import (
	"context"

	"github.com/latchkey/latchkey/internal/store"
)

// DeactivateIn drops every verification certificate of a SAML connection
// inside q through an administrator's change (changeTx, then save and
// saveDependents), as the last certificate's deletion does: the
// connection becomes pending.
func (s *Service) DeactivateIn(ctx context.Context, q store.Querier, projectID, orgID, connID string) error {
	_, err := s.changeTx(ctx, q, changeTarget{projectID, orgID, connID, KindSAML}, func(_ context.Context, c *conn) error {
		c.SAML.VerificationCertificates = nil
		return nil
	})
	return err
}

// RemoveIn deletes a connection inside q as an administrator's delete does
// (loadLocked, then remove).
func (s *Service) RemoveIn(ctx context.Context, q store.Querier, projectID, orgID, connID string) error {
	c, err := s.loadLocked(ctx, q, projectID, orgID, connID)
	if err != nil {
		return err
	}
	return s.remove(ctx, q, c)
}
