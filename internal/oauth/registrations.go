package oauth

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/latchkey/latchkey/internal/apierr"
	"github.com/latchkey/latchkey/internal/atrest"
	"github.com/latchkey/latchkey/internal/httpapi"
	"github.com/latchkey/latchkey/internal/ids"
	"github.com/latchkey/latchkey/internal/oauth/providers"
	"github.com/latchkey/latchkey/internal/organization"
	"github.com/latchkey/latchkey/internal/project"
	"github.com/latchkey/latchkey/internal/providertokens"
	"github.com/latchkey/latchkey/internal/session"
	"github.com/latchkey/latchkey/internal/store"
)

// Registration is the wire shape of oauth_registrations[] on a member.
type Registration struct {
	MemberOAuthRegistrationID string             `json:"member_oauth_registration_id"`
	ProviderSubject           string             `json:"provider_subject"`
	ProviderType              string             `json:"provider_type"`
	ProfilePictureURL         string             `json:"profile_picture_url"`
	Locale                    string             `json:"locale"`
	ProviderTenants           []providers.Tenant `json:"provider_tenants"`
}

// registered is a provider account's registration to a member:
// emailVerified records whether the provider ever verified the member's
// address for it (memberFor).
type registered struct {
	memberID      string
	emailVerified bool
}

// registeredMember finds the member who registered this provider account
// in the organization.
func (m *Module) registeredMember(ctx context.Context, q store.Querier, orgID, provider, subject string) (*registered, error) {
	var r registered
	err := q.QueryRowContext(ctx, `SELECT member_id, email_verified FROM member_oauth_registrations
		WHERE organization_id = $1 AND provider = $2 AND provider_subject = $3`, orgID, provider, subject).
		Scan(&r.memberID, &r.emailVerified)
	if err != nil {
		return nil, store.MapError(err)
	}
	return &r, nil
}

// TokensColumn is where a registration's provider tokens are kept, sealed
// at rest and bound to their row (app.SealedColumns).
var TokensColumn = atrest.Column{Table: "member_oauth_registrations", Key: "registration_id", Column: "tokens"}

// saveRegistration records (or refreshes) the member's registration of
// this provider account and returns its id. pendingTokens are the login's
// tokens as the ticket carries them (sealed for the project, see
// sealTokens; "" for none, which leaves the row's tokens as they are); the
// row gets them sealed for itself (keepTokens). proven says this login's
// provider verified the member's address; once a registration has proven
// it, it stays proven.
func (m *Module) saveRegistration(ctx context.Context, q store.Querier, p *project.Project, mem *organization.Member,
	id *providers.Identity, pendingTokens string, proven bool) (string, error) {
	tenants, err := json.Marshal(tenantsOf(id))
	if err != nil {
		return "", fmt.Errorf("oauth: encode tenants: %w", err)
	}
	var fresh *providers.Tokens
	if pendingTokens != "" {
		if m.d.Box == nil {
			return "", atrest.ErrNoKey
		}
		t, err := m.openTokens(p.ID, pendingTokens)
		if err != nil {
			return "", err
		}
		fresh = &t
	}
	now := store.Millis(m.d.Clock.Now())
	// The upsert leaves tokens alone and returns the row's, so that
	// keepTokens sees the previous login's under the row's lock.
	var regID, stored string
	err = q.QueryRowContext(ctx, `INSERT INTO member_oauth_registrations (registration_id, project_id, organization_id,
		member_id, provider, provider_subject, profile_picture_url, locale, provider_tenants, tokens, email_verified,
		created_at, updated_at)
		VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11,$12,$12)
		ON CONFLICT (organization_id, provider, provider_subject) DO UPDATE SET profile_picture_url = excluded.profile_picture_url,
		locale = excluded.locale, provider_tenants = excluded.provider_tenants,
		email_verified = (member_oauth_registrations.email_verified OR excluded.email_verified), updated_at = excluded.updated_at
		RETURNING registration_id, tokens`,
		ids.New("member-oauth-registration", p.Env), p.ID, mem.OrganizationID, mem.MemberID, id.Provider, id.Subject,
		id.Picture, id.Locale, string(tenants), "", proven, now).Scan(&regID, &stored)
	if err != nil {
		return "", fmt.Errorf("oauth: save registration: %w", err)
	}
	if fresh == nil {
		return regID, nil
	}
	return regID, m.keepTokens(ctx, q, regID, stored, *fresh)
}

// keepTokens stores a login's provider tokens t on registration regID,
// sealed for that row, in place of stored (the row's previous ones, "" for
// none). The ID token is the login's. The access token, its expiry and
// scopes are the login's too, unless it brought no access token (a One Tap
// login): then the previous ones stay (providertokens.Tokens.KeepingAccess).
// The refresh token is the login's unless the provider issued none this
// time: then the previous one stays (providertokens.Tokens.KeepingRefresh).
func (m *Module) keepTokens(ctx context.Context, q store.Querier, regID, stored string, t providers.Tokens) error {
	if (t.RefreshToken == "" || t.AccessToken == "") && stored != "" {
		prev, err := providertokens.Open(m.d.Box, TokensColumn, regID, stored)
		if err != nil {
			return fmt.Errorf("oauth: previous tokens: %w", err)
		}
		t = t.KeepingRefresh(prev).KeepingAccess(prev)
	}
	sealed, err := providertokens.Seal(m.d.Box, TokensColumn, regID, t)
	if err != nil {
		return err
	}
	// tokens_checked records them as sealed for the row (tokensPass).
	if _, err := q.ExecContext(ctx, `UPDATE member_oauth_registrations SET tokens = $1, tokens_checked = substr($1, 5, 16)
		WHERE registration_id = $2`, sealed, regID); err != nil {
		return fmt.Errorf("oauth: save registration tokens: %w", err)
	}
	return nil
}

// MemberDeleted clears, inside q, the provider tokens kept on a deleted
// member's registrations (organization.MemberDeletionHook). The
// registrations stay with the member's row, so a reactivated member logs
// in with the same accounts, but the tokens do not come back: the member
// logs in again for new ones.
func (m *Module) MemberDeleted(ctx context.Context, q store.Querier, mem *organization.Member) error {
	if _, err := q.ExecContext(ctx, `UPDATE member_oauth_registrations SET tokens = $1 WHERE member_id = $2 AND tokens <> $1`,
		"", mem.MemberID); err != nil {
		return fmt.Errorf("oauth: clear deleted member's tokens: %w", err)
	}
	return nil
}

// registerDiscovered records the OAuth registration of a login that began
// in discovery: there the provider account was proven before any member
// existed, so its factor names no registration. When the session starts,
// the member is known; the account is registered to them (unless it
// already is) and the factor names the registration and the member's
// email, as an organization flow login's does. Provider tokens stay unrecorded: discovery does not
// keep them past the callback. The registration proves the member's
// address when the provider verified that address at the login (the
// factor carries it, session.Factor.Carries; discovery admits no other).
func (m *Module) registerDiscovered(ctx context.Context, q store.Querier, p *project.Project, mem *organization.Member,
	factors []session.Factor) (*organization.Member, error) {
	added := false
	for _, f := range factors {
		provider, of, ok := f.OAuth()
		if !ok {
			continue
		}
		// A discovery login's factor was made before any member existed;
		// the session is this member's, reached through their address, so
		// the factor names their email as an organization login's does
		// (the browser SDK requires email_id; api-reference 3).
		if of.EmailID == "" {
			of.EmailID = mem.EmailID
		}
		if of.ID != "" {
			continue
		}
		id := &providers.Identity{Provider: provider, Subject: of.ProviderSubject}
		for _, t := range of.TenantIDs() {
			id.Tenants = append(id.Tenants, providers.Tenant{ID: t})
		}
		regID, err := m.ensureRegistration(ctx, q, p, mem, id, f.Carries(mem.EmailAddress))
		if err != nil {
			return nil, err
		}
		of.ID, added = regID, added || regID != ""
	}
	if !added {
		return mem, nil
	}
	// Reload so the answer shows the registration just recorded.
	return m.d.Orgs.Member(ctx, q, p.ID, mem.MemberID)
}

// ensureRegistration returns the member's registration of this provider
// account, recording it first when there is none. An existing one keeps
// its tokens and tenant names, and is marked as proving the address when
// this login does. An account already registered to another member of the
// organization stays theirs: "" and no error, so the login (proven by its
// email) goes on without claiming the account.
func (m *Module) ensureRegistration(ctx context.Context, q store.Querier, p *project.Project, mem *organization.Member,
	id *providers.Identity, proven bool) (string, error) {
	var regID, owner string
	err := q.QueryRowContext(ctx, `SELECT registration_id, member_id FROM member_oauth_registrations
		WHERE organization_id = $1 AND provider = $2 AND provider_subject = $3`,
		mem.OrganizationID, id.Provider, id.Subject).Scan(&regID, &owner)
	switch err = store.MapError(err); {
	case errors.Is(err, store.ErrNotFound):
		return m.saveRegistration(ctx, q, p, mem, id, "", proven)
	case err != nil:
		return "", fmt.Errorf("oauth: find registration: %w", err)
	case owner != mem.MemberID:
		return "", nil
	}
	if proven {
		if _, err := q.ExecContext(ctx, `UPDATE member_oauth_registrations SET email_verified = $1
			WHERE registration_id = $2 AND email_verified = $3`, true, regID, false); err != nil {
			return "", fmt.Errorf("oauth: mark registration verified: %w", err)
		}
	}
	return regID, nil
}

// decorateMembers fills oauth_registrations on loaded members.
func (m *Module) decorateMembers(ctx context.Context, q store.Querier, byID map[string]*organization.Member) error {
	args := make([]any, 0, len(byID))
	marks := make([]string, 0, len(byID))
	for id := range byID {
		args = append(args, id)
		marks = append(marks, fmt.Sprintf("$%d", len(args)))
	}
	rows, err := q.QueryContext(ctx, `SELECT member_id, registration_id, provider, provider_subject, profile_picture_url,
		locale, provider_tenants FROM member_oauth_registrations WHERE member_id IN (`+strings.Join(marks, ",")+`)
		ORDER BY created_at, registration_id`, args...)
	if err != nil {
		return fmt.Errorf("oauth: registrations: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var memberID, tenants string
		var r Registration
		if err := rows.Scan(&memberID, &r.MemberOAuthRegistrationID, &r.ProviderType, &r.ProviderSubject,
			&r.ProfilePictureURL, &r.Locale, &tenants); err != nil {
			return fmt.Errorf("oauth: registrations: %w", err)
		}
		if err := json.Unmarshal([]byte(tenants), &r.ProviderTenants); err != nil {
			return fmt.Errorf("oauth: registration tenants: %w", err)
		}
		if mem := byID[memberID]; mem != nil {
			mem.OAuthRegistrations = append(mem.OAuthRegistrations, r)
		}
	}
	return rows.Err()
}

// providerInfo is one registration as the backend's oauth_providers route
// shows it.
type providerInfo struct {
	ProviderSubject      string   `json:"provider_subject"`
	ProviderTenantID     string   `json:"provider_tenant_id,omitempty"`
	ProviderTenantIDs    []string `json:"provider_tenant_ids,omitempty"`
	AccessToken          string   `json:"access_token"`
	AccessTokenExpiresIn int      `json:"access_token_expires_in"`
	IDToken              string   `json:"id_token,omitempty"`
	RefreshToken         string   `json:"refresh_token,omitempty"`
	Scopes               []string `json:"scopes"`
	BotAccessToken       string   `json:"bot_access_token,omitempty"`
}

// handleProviderInfo serves GET /v1/b2b/organizations/{organization_id}/
// members/{member_id}/oauth_providers/{provider}: the member's provider
// tokens, for the customer's backend to call the provider's API. Google and
// Microsoft answer their latest registration flat; the others list every
// registration. Refresh tokens only with include_refresh_token=true. An
// access token that has expired, or is about to, is refreshed first when
// a refresh token is held (refresh.go).
func (m *Module) handleProviderInfo(r *http.Request) (any, error) {
	ctx, p := r.Context(), project.CallerFrom(r.Context()).Project
	name := r.PathValue("provider")
	if !providers.Known(name) {
		return nil, apierr.New(apierr.OAuthProviderNotFound)
	}
	org, err := m.d.Orgs.Get(ctx, p.ID, r.PathValue("organization_id"))
	if err != nil {
		return nil, organization.NotFound(err, apierr.OrganizationNotFound)
	}
	mem, err := m.d.Orgs.OrgMember(ctx, m.d.DB.Read(), org, r.PathValue("member_id"))
	if err != nil {
		return nil, organization.NotFound(err, apierr.MemberNotFound)
	}
	// A deleted member's tokens were cleared (MemberDeleted); the member is
	// refused as the backend routes that would act for one are.
	if mem.Status == organization.StatusDeleted {
		return nil, apierr.New(apierr.InactiveMember)
	}
	withRefresh := r.URL.Query().Get("include_refresh_token") == "true"
	rows, err := m.d.DB.Read().QueryContext(ctx, `SELECT registration_id, provider_subject, provider_tenants, tokens FROM member_oauth_registrations
		WHERE member_id = $1 AND provider = $2 ORDER BY updated_at DESC, registration_id`, mem.MemberID, name)
	if err != nil {
		return nil, fmt.Errorf("oauth: provider info: %w", err)
	}
	var regs []providerInfo
	var sealed, regIDs []string
	for rows.Next() {
		var info providerInfo
		var regID, tenants, tok string
		if err := rows.Scan(&regID, &info.ProviderSubject, &tenants, &tok); err != nil {
			rows.Close()
			return nil, fmt.Errorf("oauth: provider info: %w", err)
		}
		var ts []providers.Tenant
		_ = json.Unmarshal([]byte(tenants), &ts)
		for _, t := range ts {
			info.ProviderTenantIDs = append(info.ProviderTenantIDs, t.ID)
		}
		if name != providers.GitHub && len(info.ProviderTenantIDs) > 0 {
			info.ProviderTenantID, info.ProviderTenantIDs = info.ProviderTenantIDs[0], nil
		}
		regs, sealed, regIDs = append(regs, info), append(sealed, tok), append(regIDs, regID)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("oauth: provider info: %w", err)
	}
	if providers.IsOIDC(name) && len(regs) > 1 {
		// Only the latest is answered (below): only it is opened, and
		// refreshed.
		regs, sealed, regIDs = regs[:1], sealed[:1], regIDs[:1]
	}
	// Built once, and only when a registration's refresh needs it.
	prov := m.lazyProvider(p.ID, name)
	for i := range regs {
		t, err := providertokens.Open(m.d.Box, TokensColumn, regIDs[i], sealed[i])
		if err != nil {
			return nil, err
		}
		if needsRefresh(t, m.d.Clock.Now()) {
			t = m.refreshed(ctx, prov, name, regIDs[i], sealed[i], t)
		}
		regs[i].AccessToken, regs[i].IDToken, regs[i].Scopes = t.AccessToken, t.IDToken, t.Scopes
		if regs[i].Scopes == nil {
			regs[i].Scopes = []string{}
		}
		if withRefresh {
			regs[i].RefreshToken = t.RefreshToken
		}
		regs[i].AccessTokenExpiresIn = t.ExpiresIn(m.d.Clock.Now())
	}
	if providers.IsOIDC(name) {
		if len(regs) == 0 {
			return nil, apierr.New(apierr.OAuthTokenNotFound).WithMessage("This member has no " + name + " OAuth registration.")
		}
		return &struct {
			httpapi.Common
			ProviderType string `json:"provider_type"`
			providerInfo
		}{ProviderType: name, providerInfo: regs[0]}, nil
	}
	if regs == nil {
		regs = []providerInfo{}
	}
	return &struct {
		httpapi.Common
		ProviderType  string         `json:"provider_type"`
		Registrations []providerInfo `json:"registrations"`
	}{ProviderType: name, Registrations: regs}, nil
}
