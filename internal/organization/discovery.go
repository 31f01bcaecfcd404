package organization

import (
	"context"
	"fmt"
	"slices"

	"github.com/latchkey/latchkey/internal/emailaddr"
	"github.com/latchkey/latchkey/internal/store"
)

// MembersByEmail returns the project's non-deleted members with this
// (normalised) email, one per organization: what discovery shows a person
// who proved they own the address.
func (s *Store) MembersByEmail(ctx context.Context, q store.Querier, projectID, email string) ([]*Member, error) {
	rows, err := q.QueryContext(ctx, `SELECT `+memberSelectAt(4)+` FROM members WHERE project_id = $1 AND email_address = $2
		AND status <> $3 ORDER BY created_at, member_id`, projectID, email, StatusDeleted, store.Millis(s.clock.Now()))
	if err != nil {
		return nil, fmt.Errorf("organization: members by email: %w", err)
	}
	defer rows.Close()
	var out []*Member
	for rows.Next() {
		m, err := scanMember(rows)
		if err != nil {
			return nil, fmt.Errorf("organization: members by email: %w", err)
		}
		out = append(out, m)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("organization: members by email: %w", err)
	}
	rows.Close() // q may be a transaction: free its connection for the next query
	return out, s.decorate(ctx, q, out...)
}

// DeletedMembershipOrgs returns the IDs of the project's organizations
// where this (normalised) email is a deleted member. Such an organization
// still holds the address (one member per address in an organization), so
// it cannot admit it again by JIT: the login finds the deleted member and
// refuses it (inactive_member). Discovery uses this not to offer it as one
// the address may join.
func (s *Store) DeletedMembershipOrgs(ctx context.Context, q store.Querier, projectID, email string) ([]string, error) {
	out, err := store.Strings(ctx, q, `SELECT organization_id FROM members WHERE project_id = $1 AND email_address = $2
		AND status = $3 ORDER BY organization_id`, projectID, email, StatusDeleted)
	if err != nil {
		return nil, fmt.Errorf("organization: deleted memberships by email: %w", err)
	}
	return out, nil
}

// JoinableByDomain returns the organizations that admit people of domain
// by email JIT: email_jit_provisioning RESTRICTED with domain in
// email_allowed_domains, and vouched for at domain (see withDomain), the
// API family's eligible_to_join_by_email_domain rule. This only offers: an
// organization's allowed domains claim nothing (claimed_email_domains
// does, ClaimantOf), so anyone may list any domain here without keeping
// its people from anything.
//
// A shared mail provider's domain (emailaddr.IsCommonDomain) makes no
// organization joinable. Settings refuse it now, but an organization may
// have stored it before; it must not be offered to every gmail.com user
// of the project. (Its own email JIT still admits them: that is its
// members' list, not an offer to everyone.)
func (s *Store) JoinableByDomain(ctx context.Context, q store.Querier, projectID, domain string) ([]*Organization, error) {
	return s.withDomain(ctx, q, projectID, domain, true)
}

// WithAllowedDomain returns the organizations whose email_allowed_domains
// list domain and that are vouched for at domain (see withDomain),
// whatever their email JIT settings: SSO discovery applies the SSO JIT
// rule to each connection itself. A shared mail provider's domain finds
// none, as with JoinableByDomain.
func (s *Store) WithAllowedDomain(ctx context.Context, q store.Querier, projectID, domain string) ([]*Organization, error) {
	return s.withDomain(ctx, q, projectID, domain, false)
}

// withDomain lists the organizations with domain in email_allowed_domains
// (and email JIT RESTRICTED when restrictedOnly) that have an active member
// whose address is at domain and proven (email_address_proven). That is
// the API family's condition against phishing: listing a domain costs
// nothing, so without it anyone could create "BigCorp", allow
// bigcorp.test, and be offered to every bigcorp.test address that runs
// discovery, or have SSO discovery send them straight to her identity
// provider. Only active members count: pending and invited ones were
// named by the organization (its admin may invite any address) and have
// not logged in. An address verified only by the organization's own SSO
// identity provider does not count either (MarkEmailAsserted): her
// provider could assert any bigcorp.test address.
//
// An organization that claims domain (claimed_email_domains, which only
// the customer's backend sets) is vouched for by the claim itself: an
// organization whose people log in only by SSO has no member with a
// proven address, and its claim is how the customer says the domain is
// its.
func (s *Store) withDomain(ctx context.Context, q store.Querier, projectID, domain string, restrictedOnly bool) ([]*Organization, error) {
	if domain == "" || emailaddr.IsCommonDomain(domain) {
		return nil, nil
	}
	// The JSON list is matched coarsely in SQL (portable LIKE on the
	// encoded string) and exactly in Go.
	rows, err := q.QueryContext(ctx, `SELECT `+orgSelect+` FROM organizations WHERE project_id = $1
		AND ($2 = '' OR email_jit_provisioning = $2) AND email_allowed_domains LIKE $3
		AND (EXISTS (SELECT 1 FROM members v WHERE v.organization_id = organizations.organization_id
			AND v.status = $4 AND v.email_address_proven = $5 AND v.email_address LIKE $6 ESCAPE '\')
		OR EXISTS (SELECT 1 FROM organization_claimed_domains c WHERE c.organization_id = organizations.organization_id
			AND c.domain = $7))
		ORDER BY created_at, organization_id`,
		projectID, map[bool]string{true: Restricted}[restrictedOnly], "%"+mustJSON(domain)+"%",
		StatusActive, true, "%@"+store.LikeEscape(domain), domain)
	if err != nil {
		return nil, fmt.Errorf("organization: organizations with domain: %w", err)
	}
	defer rows.Close()
	var out []*Organization
	for rows.Next() {
		o, err := scanOrg(rows)
		if err != nil {
			return nil, fmt.Errorf("organization: organizations with domain: %w", err)
		}
		if slices.Contains(o.EmailAllowedDomains, domain) {
			out = append(out, o)
		}
	}
	return out, rows.Err()
}

// GetTx loads an organization through q (inside a transaction that may
// have written it).
func (s *Store) GetTx(ctx context.Context, q store.Querier, projectID, orgID string) (*Organization, error) {
	o, err := scanOrg(q.QueryRowContext(ctx, `SELECT `+orgSelect+` FROM organizations
		WHERE organization_id = $1 AND project_id = $2`, orgID, projectID))
	if err != nil {
		return nil, fmt.Errorf("organization: get %s: %w", orgID, err)
	}
	return o, nil
}
