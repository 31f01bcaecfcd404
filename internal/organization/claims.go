package organization

import (
	"context"
	"errors"
	"fmt"

	"github.com/latchkey/latchkey/internal/apierr"
	"github.com/latchkey/latchkey/internal/store"
)

// Claimed email domains (claimed_email_domains) are a setting of their
// own, written only by the customer's backend: organizations create and
// update on the backend face with the project secret (backendSettings).
// The SDK face, a member session on the backend face and discovery's
// organization create cannot set them, because a claim is a statement
// about who owns a domain that nobody has proven to this server; before
// this setting a RESTRICTED organization's allowed domains counted as
// claimed, and any stranger could claim a company's domain from the
// browser.
//
// A domain has at most one claimant in a project: the claim decides which
// single organization the domain's people may still join by discovery, so
// two claimants would contradict each other. The rows of
// organization_claimed_domains enforce that under concurrent updates.

// claimedDomainRule refuses claimed domains as email_allowed_domains
// refuses its own: not a domain, or a shared mail provider's (claiming
// gmail.com would keep every gmail user of the project out of every other
// organization).
var claimedDomainRule = domainRule{"claimed_email_domains", apierr.InvalidClaimedDomain, apierr.ClaimedDomainTooCommon}

// writeClaims makes organization_claimed_domains hold exactly o's
// claimed domains, inside q (the transaction that writes o). A domain
// another organization of the project claims is refused with
// organization_settings_duplicate_claimed_domain. ON CONFLICT DO NOTHING
// rather than a failed insert keeps a PostgreSQL transaction usable and
// tells exactly which domain is taken; under concurrency the second
// writer waits for the first's commit and then inserts nothing.
func (s *Store) writeClaims(ctx context.Context, q store.Querier, o *Organization) error {
	if _, err := q.ExecContext(ctx, `DELETE FROM organization_claimed_domains WHERE organization_id = $1`, o.OrganizationID); err != nil {
		return fmt.Errorf("organization: release claimed domains: %w", err)
	}
	for _, d := range o.ClaimedEmailDomains {
		res, err := q.ExecContext(ctx, `INSERT INTO organization_claimed_domains (project_id, domain, organization_id)
			VALUES ($1, $2, $3) ON CONFLICT (project_id, domain) DO NOTHING`, o.projectID, d, o.OrganizationID)
		if err != nil {
			return fmt.Errorf("organization: claim %s: %w", d, err)
		}
		n, err := res.RowsAffected()
		if err != nil {
			return fmt.Errorf("organization: claim %s: %w", d, err)
		}
		if n == 0 {
			return apierr.New(apierr.DuplicateClaimedDomain).WithMessage(fmt.Sprintf("%q is already claimed by another organization of the project.", d)).
				WithDetails(map[string]any{"field": claimedDomainRule.field, "domain": d})
		}
	}
	return nil
}

// ClaimantOf returns the ID of the organization of the project that
// claims domain (normalised, lower case), or store.ErrNotFound when no
// organization claims it.
func (s *Store) ClaimantOf(ctx context.Context, q store.Querier, projectID, domain string) (string, error) {
	var id string
	err := q.QueryRowContext(ctx, `SELECT organization_id FROM organization_claimed_domains WHERE project_id = $1 AND domain = $2`,
		projectID, domain).Scan(&id)
	if err != nil {
		return "", fmt.Errorf("organization: claimant of %s: %w", domain, store.MapError(err))
	}
	return id, nil
}

// ClaimedByAnother reports whether an organization other than orgID
// ("" for none, as for an organization still to be created) claims
// domain.
func (s *Store) ClaimedByAnother(ctx context.Context, q store.Querier, projectID, domain, orgID string) (bool, error) {
	id, err := s.ClaimantOf(ctx, q, projectID, domain)
	switch {
	case errors.Is(err, store.ErrNotFound):
		return false, nil
	case err != nil:
		return false, err
	}
	return id != orgID, nil
}
