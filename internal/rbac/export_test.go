package rbac

import (
	"context"

	"github.com/latchkey/latchkey/internal/store"
)

// Hooks for the external tests that hold a change's transaction open
// (storetest.Overlap) to race another change against it.

// SetCustomIn is SetCustom's transaction, inside q, for a policy already
// valid.
func (s *Service) SetCustomIn(ctx context.Context, q store.Querier, projectID string, clean Policy) error {
	_, err := s.setCustomIn(ctx, q, projectID, clean, false)
	return err
}

// SetOrgRolesIn is the organization policy route's transaction, inside q.
func (s *Service) SetOrgRolesIn(ctx context.Context, q store.Querier, projectID, orgID string, roles []Role) error {
	_, err := s.setOrgRolesIn(ctx, q, projectID, orgID, roles)
	return err
}
