package organization

import (
	"context"
	"fmt"
	"slices"

	"github.com/latchkey/latchkey/internal/store"
)

// AllowsOAuthTenant reports whether OAuth tenant JIT admits someone from
// one of these tenants of provider (a Google Workspace domain, Microsoft
// tenant, Slack team, GitHub organization or HubSpot portal), and which
// tenant matched.
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

// AllowingOAuthTenant returns the organizations whose OAuth tenant JIT
// admits one of these tenants of provider (discovery lists them as
// eligible_to_join_by_oauth_tenant).
func (s *Store) AllowingOAuthTenant(ctx context.Context, q store.Querier, projectID, provider string, tenantIDs []string) ([]*Organization, error) {
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
	defer rows.Close()
	var out []*Organization
	for rows.Next() {
		o, err := scanOrg(rows)
		if err != nil {
			return nil, fmt.Errorf("organization: allowing oauth tenant: %w", err)
		}
		if _, ok := o.AllowsOAuthTenant(provider, tenantIDs); ok {
			out = append(out, o)
		}
	}
	return out, rows.Err()
}
