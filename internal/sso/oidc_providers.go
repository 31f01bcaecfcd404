package sso

import (
	"context"
	"fmt"
	"net/http"

	"github.com/latchkey/latchkey/internal/apierr"
	"github.com/latchkey/latchkey/internal/organization"
	"github.com/latchkey/latchkey/internal/project"
	"github.com/latchkey/latchkey/internal/store"
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
	// A deleted member's tokens were cleared (MemberDeleted); the member is
	// refused as the backend routes that would act for one are.
	if m.Status == organization.StatusDeleted {
		return nil, apierr.New(apierr.InactiveMember)
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

// MemberDeleted clears, inside q, the provider tokens kept on a deleted
// member's SSO registrations (organization.MemberDeletionHook). The
// registrations stay with the member's row, so a reactivated member logs
// in as the same identity, but the tokens do not come back: the member
// logs in again for new ones.
func (s *Service) MemberDeleted(ctx context.Context, q store.Querier, m *organization.Member) error {
	if _, err := q.ExecContext(ctx, `UPDATE sso_registrations SET tokens = $1 WHERE member_id = $2 AND tokens <> $1`,
		"", m.MemberID); err != nil {
		return fmt.Errorf("sso: clear deleted member's tokens: %w", err)
	}
	return nil
}
