package sso

import (
	"context"

	"github.com/latchkey/latchkey/internal/store"
)

// DeactivateIn clears a SAML connection's identity provider SSO URL inside
// q through an administrator's change (changeTx, then save and
// saveDependents), as an update with an empty idp_sso_url does: the
// connection becomes pending. (An active connection's last verification
// certificate cannot be deleted, so this is how an administrator takes a
// connection out of service without deleting it.)
func (s *Service) DeactivateIn(ctx context.Context, q store.Querier, projectID, orgID, connID string) error {
	_, err := s.changeTx(ctx, q, changeTarget{projectID, orgID, connID, KindSAML}, func(_ context.Context, c *conn) error {
		c.SAML.IdPSSOURL = ""
		return nil
	})
	return err
}

// DeleteCertificateIn deletes a SAML connection's verification certificate
// inside q as an administrator's delete does (changeTx with
// deleteCertificate).
func (s *Service) DeleteCertificateIn(ctx context.Context, q store.Querier, projectID, orgID, connID, certID string) error {
	_, err := s.changeTx(ctx, q, changeTarget{projectID, orgID, connID, KindSAML}, func(_ context.Context, c *conn) error {
		return s.deleteCertificate(c, certID)
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
