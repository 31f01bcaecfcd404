package organization

import (
	"context"

	"github.com/latchkey/latchkey/internal/store"
)

// SearchMembersIn is SearchMembers reading through q, for tests that
// count the statements of a search.
func (s *Store) SearchMembersIn(ctx context.Context, q store.Querier, projectID string, p MemberSearchParams) (*MemberSearchResult, error) {
	return s.searchMembers(ctx, q, projectID, p)
}
