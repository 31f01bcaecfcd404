package sso

import (
	"fmt"
	"net/http"

	"github.com/latchkey/latchkey/internal/apierr"
	"github.com/latchkey/latchkey/internal/organization"
	"github.com/latchkey/latchkey/internal/project"
)

// OIDCProviders handles GET /v1/b2b/organizations/{organization_id}/
// members/{member_id}/oidc_providers (the Node client's
// members.oidcProviders): the provider tokens of the member's OIDC SSO
// registrations (also those at external connections over OIDC), latest
// login first, for the customer's backend to call
// the identity provider's API. Refresh tokens only with
// include_refresh_token=true, as for oauth_providers. A registration from
// before tokens were kept is listed with empty tokens.
func (h Handlers) OIDCProviders(r *http.Request) (any, error) {
	ctx, p := r.Context(), project.CallerFrom(r.Context()).Project
	org, err := h.s.d.Orgs.Get(ctx, p.ID, r.PathValue("organization_id"))
	if err != nil {
		return nil, organization.NotFound(err, apierr.OrganizationNotFound)
	}
	q := h.s.d.DB.Read()
	m, err := h.s.d.Orgs.OrgMember(ctx, q, org, r.PathValue("member_id"))
	if err != nil {
		return nil, err
	}
	rows, err := q.QueryContext(ctx, `SELECT r.registration_id, r.connection_id, r.external_id, r.tokens
		FROM sso_registrations r JOIN sso_connections c ON c.connection_id = r.connection_id
		WHERE r.member_id = $1 AND (c.kind = $2 OR (c.kind = $3 AND r.tokens <> ''))
		ORDER BY r.updated_at DESC, r.registration_id`, m.MemberID, KindOIDC, KindExternal)
	if err != nil {
		return nil, fmt.Errorf("sso: oidc providers: %w", err)
	}
	defer rows.Close()
	withRefresh := r.URL.Query().Get("include_refresh_token") == "true"
	now := h.s.d.Clock.Now()
	out := &OIDCProvidersResponse{Registrations: []OIDCProviderInfo{}}
	for rows.Next() {
		var info OIDCProviderInfo
		var regID, sealed string
		if err := rows.Scan(&regID, &info.ConnectionID, &info.ProviderSubject, &sealed); err != nil {
			return nil, fmt.Errorf("sso: oidc providers: %w", err)
		}
		t, err := h.s.openTokens(regID, sealed)
		if err != nil {
			return nil, err
		}
		info.IDToken, info.AccessToken, info.AccessTokenExpiresIn = t.IDToken, t.AccessToken, t.ExpiresIn(now)
		if info.Scopes = t.Scopes; info.Scopes == nil {
			info.Scopes = []string{}
		}
		if withRefresh {
			info.RefreshToken = t.RefreshToken
		}
		out.Registrations = append(out.Registrations, info)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("sso: oidc providers: %w", err)
	}
	return out, nil
}
