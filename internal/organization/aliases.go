package organization

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/latchkey/latchkey/internal/apierr"
	"github.com/latchkey/latchkey/internal/store"
)

// An organization's slug and its external id are both names the backend
// face resolves to it (ResolveOrganization), so they share one namespace
// per project: no organization's slug may be another's external id. The
// two are not alike in trust. A slug may be chosen by a stranger
// (discovery's organizations/create, an admin's organizations/me), while
// the external id is the customer's backend's own, set only with the
// project secret; with the namespaces apart, a stranger's slug equal to a
// customer's external id made every backend call "by external id" (get,
// members create with is_admin, update, delete, SSO and RBAC setup) land
// in the stranger's organization.
//
// The rows of organization_aliases (migration 0111) hold the rule under
// concurrent writes, as organization_claimed_domains do for claims: each
// of an organization's names is a row keyed by (project, name), written in
// the transaction that writes the organization.

// aliasesOf returns o's names in the shared namespace, sorted (writers
// insert in one order, so two of them cannot wait on each other's rows):
// its slug and, when set and different, its external id.
func aliasesOf(o *Organization) []string {
	names := []string{o.OrganizationSlug}
	if o.OrganizationExternalID != "" && o.OrganizationExternalID != o.OrganizationSlug {
		names = append(names, o.OrganizationExternalID)
	}
	slices.Sort(names)
	return names
}

// writeAliases brings organization_aliases from before (o's names as it
// was read; nil for a new organization) to o's names now, inside q. A name
// o newly takes that another organization of the project holds, as a slug
// or as an external id, is refused: organization_slug_already_used when o
// takes it as its slug, organization_external_id_already_used when as its
// external id. A name o keeps is not checked again, so an organization
// written before the rule, whose slug another's external id already was,
// can still be updated (ResolveOrganization gives such a name to the
// external id's organization).
//
// ON CONFLICT DO NOTHING rather than a failed insert keeps a PostgreSQL
// transaction usable and tells which name is taken; under concurrency the
// second writer waits for the first's commit and then inserts nothing.
func (s *Store) writeAliases(ctx context.Context, q store.Querier, o *Organization, before []string) error {
	after := aliasesOf(o)
	for _, name := range before {
		if slices.Contains(after, name) {
			continue
		}
		if _, err := q.ExecContext(ctx, `DELETE FROM organization_aliases WHERE project_id = $1 AND alias = $2 AND organization_id = $3`,
			o.projectID, name, o.OrganizationID); err != nil {
			return fmt.Errorf("organization: release alias %q: %w", name, err)
		}
	}
	for _, name := range after {
		if slices.Contains(before, name) {
			continue
		}
		res, err := q.ExecContext(ctx, `INSERT INTO organization_aliases (project_id, alias, organization_id)
			VALUES ($1, $2, $3) ON CONFLICT (project_id, alias) DO NOTHING`, o.projectID, name, o.OrganizationID)
		if err != nil {
			return fmt.Errorf("organization: take alias %q: %w", name, err)
		}
		n, err := res.RowsAffected()
		if err != nil {
			return fmt.Errorf("organization: take alias %q: %w", name, err)
		}
		holder, err := s.aliasHolder(ctx, q, o, name, n == 1)
		if err != nil {
			return err
		}
		if holder != "" {
			return aliasTaken(o, name, holder)
		}
	}
	return nil
}

// aliasHolder returns the organization other than o that holds name, or
// "" when none does. When the insert took the row (inserted), only an
// organization written before organization_aliases existed can still hold
// the name without a row (the migration's backfill left one row per name);
// organizations is asked for those, on its two unique indexes. When it did
// not, the row's organization holds it; a row gone since (its holder let
// the name go and committed) still refuses this write, which may be sent
// again.
func (s *Store) aliasHolder(ctx context.Context, q store.Querier, o *Organization, name string, inserted bool) (string, error) {
	var holder string
	if inserted {
		err := store.MapError(q.QueryRowContext(ctx, `SELECT organization_id FROM organizations WHERE project_id = $1 AND organization_slug = $2 AND organization_id <> $3
			UNION ALL SELECT organization_id FROM organizations WHERE project_id = $1 AND organization_external_id = $2 AND organization_id <> $3
			LIMIT 1`, o.projectID, name, o.OrganizationID).Scan(&holder))
		if errors.Is(err, store.ErrNotFound) {
			return "", nil
		}
		if err != nil {
			return "", fmt.Errorf("organization: holder of alias %q: %w", name, err)
		}
		return holder, nil
	}
	err := store.MapError(q.QueryRowContext(ctx, `SELECT organization_id FROM organization_aliases WHERE project_id = $1 AND alias = $2`,
		o.projectID, name).Scan(&holder))
	switch {
	case errors.Is(err, store.ErrNotFound):
		return "(an organization that has since released it)", nil
	case err != nil:
		return "", fmt.Errorf("organization: holder of alias %q: %w", name, err)
	case holder == o.OrganizationID:
		return "", nil
	}
	return holder, nil
}

// aliasTaken is the refusal of o taking name, which holder has: the error
// of the field o takes it as (its slug first, when it is both). The
// catalogue's message is all the caller sees, so a stranger choosing a
// slug learns that the name is taken, as for another slug, and not that
// it is some organization's external id.
func aliasTaken(o *Organization, name, holder string) error {
	cause := fmt.Errorf("organization: %q is already a name of organization %s", name, holder)
	if name == o.OrganizationSlug {
		return apierr.Wrap(apierr.OrganizationSlugUsed, cause)
	}
	return apierr.Wrap(apierr.OrganizationExternalIDUsed, cause)
}
