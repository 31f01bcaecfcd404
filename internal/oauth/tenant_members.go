package oauth

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/latchkey/latchkey/internal/oauth/providers"
	"github.com/latchkey/latchkey/internal/organization"
	"github.com/latchkey/latchkey/internal/store"
)

// HasTenantMember implements organization.OAuthTenantMembers: an active
// member of orgID holds a registration of provider whose account the
// provider put in tenant at its last login (saveRegistration keeps each
// login's tenants). Discovery offers an organization by an OAuth tenant
// only on such a member's word, or by Google's domain rules.
func (m *Module) HasTenantMember(ctx context.Context, q store.Querier, orgID, provider, tenant string) (bool, error) {
	if tenant == "" {
		return false, nil
	}
	// Coarse in SQL (the tenant's id appears in the JSON), exact in Go.
	id, err := json.Marshal(tenant)
	if err != nil {
		return false, fmt.Errorf("oauth: tenant members: %w", err)
	}
	like := `%"tenant_id":` + store.LikeEscape(string(id)) + `%`
	rows, err := q.QueryContext(ctx, `SELECT r.provider_tenants FROM member_oauth_registrations r
		JOIN members v ON v.member_id = r.member_id
		WHERE r.organization_id = $1 AND r.provider = $2 AND v.status = $3 AND r.provider_tenants LIKE $4 ESCAPE '\'`,
		orgID, provider, organization.StatusActive, like)
	if err != nil {
		return false, fmt.Errorf("oauth: tenant members: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var raw string
		if err := rows.Scan(&raw); err != nil {
			return false, fmt.Errorf("oauth: tenant members: %w", err)
		}
		var tenants []providers.Tenant
		if err := json.Unmarshal([]byte(raw), &tenants); err != nil {
			return false, fmt.Errorf("oauth: tenant members: decode: %w", err)
		}
		if slices.ContainsFunc(tenants, func(t providers.Tenant) bool { return t.ID == tenant }) {
			return true, nil
		}
	}
	return false, rows.Err()
}
