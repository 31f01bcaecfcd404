package organization

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/latchkey/latchkey/internal/oauth/providers"
	"github.com/latchkey/latchkey/internal/store"
)

// AllowsOAuthTenant reports whether OAuth tenant JIT admits someone from
// one of these tenants of provider (a Google Workspace domain, Microsoft
// tenant, Slack team, GitHub organization or HubSpot portal), and which
// tenant matched. It is the organization's own rule, which its own OAuth
// login applies; discovery offers and admits by it only where the
// organization is vouched for at the tenant (JoinableByOAuthTenant).
func (o *Organization) AllowsOAuthTenant(provider string, tenantIDs []string) (string, bool) {
	if o.OAuthTenantJITProvisioning != Restricted {
		return "", false
	}
	for _, t := range tenantIDs {
		if slices.Contains(o.AllowedOAuthTenants[provider], t) {
			return t, true
		}
	}
	return "", false
}

// OAuthTenantMembers answers from the OAuth module's registrations (it
// keeps them) whether an organization has a member in a provider's tenant.
type OAuthTenantMembers interface {
	// HasTenantMember reports, inside q, whether an active member of orgID
	// holds an OAuth registration of provider whose account the provider
	// said (at its last login) belongs to tenant.
	HasTenantMember(ctx context.Context, q store.Querier, orgID, provider, tenant string) (bool, error)
}

// UseOAuthTenantMembers lets a registration vouch for its organization at
// its tenant (see vouchedAtTenant). The composition root calls it once,
// before serving; without it only Google's domain rule vouches.
func (s *Store) UseOAuthTenantMembers(m OAuthTenantMembers) { s.tenantMembers = m }

// TenantMatch is an organization discovery may offer by an OAuth tenant,
// and the tenant.
type TenantMatch struct {
	Organization *Organization
	Tenant       string
}

// JoinableByOAuthTenant returns the organizations whose OAuth tenant JIT
// admits one of these tenants of provider and that are vouched for at it
// (vouchedAtTenant): discovery's eligible_to_join_by_oauth_tenant.
//
// Listing a tenant costs nothing, as listing a domain does, and tenant ids
// are findable (Google's hd is the domain; Microsoft tenant, Slack team and
// GitHub organization ids are public or nearly). Without the vouching,
// anyone who proved only her own mailbox could create "BigCorp", allow
// BigCorp's tenant, and be offered to (and joined by) every one of its
// people who runs OAuth discovery.
func (s *Store) JoinableByOAuthTenant(ctx context.Context, q store.Querier, projectID, provider string, tenantIDs []string) ([]TenantMatch, error) {
	if len(tenantIDs) == 0 {
		return nil, nil
	}
	// Coarse in SQL (the provider's key appears in the JSON), exact in Go.
	rows, err := q.QueryContext(ctx, `SELECT `+orgSelect+` FROM organizations WHERE project_id = $1
		AND oauth_tenant_jit_provisioning = $2 AND allowed_oauth_tenants LIKE $3 ORDER BY created_at, organization_id`,
		projectID, Restricted, "%"+mustJSON(provider)+"%")
	if err != nil {
		return nil, fmt.Errorf("organization: allowing oauth tenant: %w", err)
	}
	var allowing []*Organization
	for rows.Next() {
		o, err := scanOrg(rows)
		if err != nil {
			rows.Close()
			return nil, fmt.Errorf("organization: allowing oauth tenant: %w", err)
		}
		allowing = append(allowing, o)
	}
	err = rows.Err()
	rows.Close() // q may be a transaction: free its connection for the vouching queries
	if err != nil {
		return nil, fmt.Errorf("organization: allowing oauth tenant: %w", err)
	}
	var out []TenantMatch
	for _, o := range allowing {
		tenant, ok, err := s.AdmitsByOAuthTenant(ctx, q, o, provider, tenantIDs)
		if err != nil {
			return nil, err
		}
		if ok {
			out = append(out, TenantMatch{Organization: o, Tenant: tenant})
		}
	}
	return out, nil
}

// AdmitsByOAuthTenant reports whether discovery may admit someone from one
// of these tenants of provider into o by its OAuth tenant JIT: o's rule
// admits the tenant and o is vouched for at it (see JoinableByOAuthTenant).
func (s *Store) AdmitsByOAuthTenant(ctx context.Context, q store.Querier, o *Organization, provider string, tenantIDs []string) (string, bool, error) {
	for _, t := range tenantIDs {
		if _, ok := o.AllowsOAuthTenant(provider, []string{t}); !ok {
			continue
		}
		ok, err := s.vouchedAtTenant(ctx, q, o, provider, t)
		if err != nil || ok {
			return t, ok, err
		}
	}
	return "", false, nil
}

// vouchedAtTenant reports whether o has shown it belongs to tenant of
// provider: an active member holds a registration of provider in tenant,
// which only the provider can have said. Google's tenant (hd) is a
// domain, so the domain rules apply too (withDomain): an active member
// with a proven address at it, or o's claim of it, vouches, and another
// organization's claim of it rules o out, as it does for the domain's
// addresses.
func (s *Store) vouchedAtTenant(ctx context.Context, q store.Querier, o *Organization, provider, tenant string) (bool, error) {
	// Every personal Microsoft account shares one tenant id: a member's
	// personal account there shows nothing about the organization, so it
	// never vouches (a registration stored before logins stopped naming
	// that tenant may still hold it; settings refuse it since).
	if provider == "microsoft" && strings.EqualFold(tenant, providers.MicrosoftConsumersTenant) {
		return false, nil
	}
	if provider == "google" {
		domain := strings.ToLower(tenant)
		claimant, err := s.ClaimantOf(ctx, q, o.projectID, domain)
		switch {
		case errors.Is(err, store.ErrNotFound):
		case err != nil:
			return false, err
		case claimant != o.OrganizationID:
			return false, nil
		default:
			return true, nil
		}
		var one int
		err = q.QueryRowContext(ctx, `SELECT 1 FROM members WHERE organization_id = $1 AND status = $2
			AND email_address_proven = $3 AND email_address LIKE $4 ESCAPE '\' LIMIT 1`,
			o.OrganizationID, StatusActive, true, "%@"+store.LikeEscape(domain)).Scan(&one)
		switch err = store.MapError(err); {
		case err == nil:
			return true, nil
		case !errors.Is(err, store.ErrNotFound):
			return false, fmt.Errorf("organization: vouched at %s: %w", domain, err)
		}
	}
	if s.tenantMembers == nil {
		return false, nil
	}
	return s.tenantMembers.HasTenantMember(ctx, q, o.OrganizationID, provider, tenant)
}
