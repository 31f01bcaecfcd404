package organization

import (
	"context"
	"fmt"

	"github.com/latchkey/latchkey/internal/ids"
	"github.com/latchkey/latchkey/internal/store"
)

// The Node client documents, on every backend request that names an
// organization or a member, that organization_id may also be the
// organization's slug or external id, and member_id the member's external
// id. ResolveOrganization and ResolveMember turn such a reference into the
// id; AliasEdge applies them to the backend face's requests.
//
// Precedence: an organization id first, then an external id, then a slug.
// A slug and an external id are one namespace per project (aliases.go):
// no write lets one organization's slug be another's external id. A
// database written before that rule may still hold such a pair, and there
// the external id wins: the customer's backend alone sets it, with the
// project secret, while a slug may have been chosen by a stranger from the
// browser to capture the backend's calls "by external id". For
// a member: the id first, then the external id within the organization
// (unique per organization, free across them). A reference spelled exactly
// as an id of its kind (ids.Is) is taken as that id without a lookup, so
// the usual call pays nothing; a slug or external id spelled like an id is
// therefore reached only as the id it looks like.

// ResolveOrganization returns the id of the organization of project
// projectID that ref names: its id, external id or slug. store.ErrNotFound
// when none does; another project's slugs and external ids are never
// matched. An id is returned as it is (the caller's own lookup by id,
// scoped to the project like every other, decides whether it exists).
func (s *Store) ResolveOrganization(ctx context.Context, q store.Querier, projectID, ref string) (string, error) {
	if ids.Is("organization", ref) {
		return ref, nil
	}
	if ref == "" {
		return "", fmt.Errorf("organization: resolve %q: %w", ref, store.ErrNotFound)
	}
	var id string
	var rank int
	// One statement, each arm on its own unique index; the rank orders the
	// arms by precedence.
	err := q.QueryRowContext(ctx, `SELECT organization_id, 1 FROM organizations WHERE organization_id = $1 AND project_id = $2
		UNION ALL SELECT organization_id, 2 FROM organizations WHERE project_id = $2 AND organization_external_id = $1
		UNION ALL SELECT organization_id, 3 FROM organizations WHERE project_id = $2 AND organization_slug = $1
		ORDER BY 2 LIMIT 1`, ref, projectID).Scan(&id, &rank)
	if err != nil {
		return "", fmt.Errorf("organization: resolve %q: %w", ref, store.MapError(err))
	}
	return id, nil
}

// ResolveMember returns the id of the member of organization orgID (of
// project projectID) that ref names: its id or its external id.
// store.ErrNotFound when none does; another organization's external ids
// are never matched. An id is returned as it is, as by ResolveOrganization.
func (s *Store) ResolveMember(ctx context.Context, q store.Querier, projectID, orgID, ref string) (string, error) {
	if ids.Is("member", ref) {
		return ref, nil
	}
	if ref == "" || orgID == "" {
		return "", fmt.Errorf("organization: resolve member %q: %w", ref, store.ErrNotFound)
	}
	var id string
	var rank int
	// external_id <> '' lets the partial unique index serve the second arm
	// ('' means "no external id" and names nobody).
	err := q.QueryRowContext(ctx, `SELECT member_id, 1 FROM members WHERE member_id = $1 AND organization_id = $2 AND project_id = $3
		UNION ALL SELECT member_id, 2 FROM members WHERE organization_id = $2 AND external_id = $1 AND external_id <> '' AND project_id = $3
		ORDER BY 2 LIMIT 1`, ref, orgID, projectID).Scan(&id, &rank)
	if err != nil {
		return "", fmt.Errorf("organization: resolve member %q: %w", ref, store.MapError(err))
	}
	return id, nil
}
