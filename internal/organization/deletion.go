package organization

import (
	"context"

	"github.com/latchkey/latchkey/internal/store"
)

// DeletionHook is told, inside an organization's deletion transaction and
// before its row goes, that the organization is being deleted: a module
// whose rows in other organizations depend on it (SSO's external
// connections) removes them and refreshes those organizations' answers,
// which the database's cascades alone would leave stale.
type DeletionHook interface {
	BeforeOrganizationDelete(ctx context.Context, q store.Querier, projectID, orgID string) error
}

// AddDeletionHook registers hooks. The composition root calls it once,
// before serving.
func (s *Store) AddDeletionHook(h ...DeletionHook) { s.deletion = append(s.deletion, h...) }
