package oauth

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/latchkey/latchkey/internal/apierr"
	"github.com/latchkey/latchkey/internal/atrest"
	"github.com/latchkey/latchkey/internal/oauth/providers"
	"github.com/latchkey/latchkey/internal/outbound"
	"github.com/latchkey/latchkey/internal/secretbox"
	"github.com/latchkey/latchkey/internal/store"
)

// ProviderConfig is what `latchkey project oauth` stores.
type ProviderConfig struct {
	ProjectID string
	Provider  string
	providers.Config
}

// ClientSecretColumn is where provider client secrets are kept, sealed at
// rest and bound to their row (app.SealedColumns).
var ClientSecretColumn = atrest.Column{Table: "oauth_provider_configs", Key: "config_id", Column: "client_secret"}

// configID is a configuration's row key.
func configID(projectID, provider string) string { return projectID + ":" + provider }

// MigrateSecrets reseals, for ClientSecretColumn and TokensColumn, the
// client secrets and registration tokens that earlier versions sealed in
// their own way (bound to the project and provider, or to the project
// only), and returns how many. It is idempotent; the server runs it at
// start-up before sealing plaintext.
func (m *Module) MigrateSecrets(ctx context.Context) (int, error) {
	// Rows written by a replica of an earlier version during a rolling
	// update have no key yet.
	if _, err := m.d.DB.ExecContext(ctx, `UPDATE oauth_provider_configs SET config_id = project_id || ':' || provider
		WHERE config_id = ''`); err != nil {
		return 0, fmt.Errorf("oauth: migrate secrets: %w", err)
	}
	n, err := m.reseal(ctx, ClientSecretColumn, `SELECT config_id, client_secret, 'oauth:' || project_id || ':' || provider
		FROM oauth_provider_configs`)
	if err != nil {
		return n, err
	}
	k, err := m.reseal(ctx, TokensColumn, `SELECT registration_id, tokens, 'oauth-tokens:' || project_id
		FROM member_oauth_registrations`)
	return n + k, err
}

// reseal reseals for col the sealed values that do not open for their
// row; query yields each row's key, stored value and the associated data
// it was sealed with before.
func (m *Module) reseal(ctx context.Context, col atrest.Column, query string) (int, error) {
	rows, err := m.d.DB.QueryContext(ctx, query)
	if err != nil {
		return 0, fmt.Errorf("oauth: migrate %s: %w", col.Column, err)
	}
	type row struct{ id, stored, legacyAAD string }
	var legacy []row
	for rows.Next() {
		var r row
		if err := rows.Scan(&r.id, &r.stored, &r.legacyAAD); err != nil {
			rows.Close()
			return 0, fmt.Errorf("oauth: migrate %s: %w", col.Column, err)
		}
		if !secretbox.IsSealed(r.stored) {
			continue // plaintext is SealExisting's
		}
		if m.d.Box == nil {
			rows.Close()
			return 0, atrest.ErrNoKey
		}
		if _, err := col.OpenStored(m.d.Box, r.id, r.stored); err != nil {
			legacy = append(legacy, r)
		}
	}
	if err := rows.Close(); err != nil {
		return 0, fmt.Errorf("oauth: migrate %s: %w", col.Column, err)
	}
	n := 0
	for _, r := range legacy {
		plain, err := m.d.Box.Open(r.stored, r.legacyAAD)
		if err != nil {
			return n, fmt.Errorf("oauth: open %s %s: %w", col.Column, r.id, err)
		}
		sealed, err := col.SealStored(m.d.Box, r.id, plain)
		if err != nil {
			return n, err
		}
		if _, err := m.d.DB.ExecContext(ctx, `UPDATE `+col.Table+` SET `+col.Column+` = $1
			WHERE `+col.Key+` = $2 AND `+col.Column+` = $3`, sealed, r.id, r.stored); err != nil {
			return n, fmt.Errorf("oauth: reseal %s %s: %w", col.Column, r.id, err)
		}
		n++
	}
	return n, nil
}

// SaveConfig stores (or replaces) a provider's configuration; the client
// secret is sealed with the server's encryption key.
func (m *Module) SaveConfig(ctx context.Context, c ProviderConfig) error {
	if !providers.Known(c.Provider) {
		return apierr.New(apierr.OAuthProviderNotFound)
	}
	if strings.TrimSpace(c.ClientID) == "" || c.ClientSecret == "" {
		return errors.New("oauth: a client id and a client secret are required")
	}
	if m.d.Box == nil {
		return errors.New("oauth: LATCHKEY_ENCRYPTION_KEY must be set to store client secrets")
	}
	if providers.IsOIDC(c.Provider) && (c.AuthorizeURL != "" || c.TokenURL != "" || c.APIURL != "") {
		return fmt.Errorf("oauth: %s is configured by --issuer, not by endpoint URLs", c.Provider)
	}
	if !providers.IsOIDC(c.Provider) && c.Issuer != "" {
		return fmt.Errorf("oauth: %s takes --authorize-url, --token-url and --api-url, not --issuer", c.Provider)
	}
	// The endpoints are fetched and their answers trusted: https, or plain
	// http only to this machine (outbound.CheckURL, the rule SSO and
	// trusted auth share).
	for _, u := range []string{c.Issuer, c.AuthorizeURL, c.TokenURL, c.APIURL} {
		if u == "" {
			continue
		}
		if err := outbound.CheckURL(u); err != nil {
			return fmt.Errorf("oauth: %q %v", u, err)
		}
	}
	if _, err := m.d.Projects.ByID(ctx, c.ProjectID); err != nil {
		return fmt.Errorf("oauth: project %s: %w", c.ProjectID, err)
	}
	now := store.Millis(m.d.Clock.Now())
	id := configID(c.ProjectID, c.Provider)
	sealed, err := ClientSecretColumn.SealStored(m.d.Box, id, c.ClientSecret)
	if err != nil {
		return err
	}
	_, err = m.d.DB.ExecContext(ctx, `INSERT INTO oauth_provider_configs (project_id, provider, client_id, client_secret,
		issuer, authorize_url, token_url, api_url, created_at, updated_at, config_id) VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$9,$10)
		ON CONFLICT (project_id, provider) DO UPDATE SET client_id = excluded.client_id, client_secret = excluded.client_secret,
		issuer = excluded.issuer, authorize_url = excluded.authorize_url, token_url = excluded.token_url,
		api_url = excluded.api_url, updated_at = excluded.updated_at`,
		c.ProjectID, c.Provider, strings.TrimSpace(c.ClientID), sealed,
		c.Issuer, c.AuthorizeURL, c.TokenURL, c.APIURL, now, id)
	if err != nil {
		return fmt.Errorf("oauth: save %s config: %w", c.Provider, err)
	}
	return nil
}

// LoadConfig returns a provider's configuration with the secret opened;
// an unconfigured provider is oauth_config_not_found.
func (m *Module) LoadConfig(ctx context.Context, projectID, provider string) (*ProviderConfig, error) {
	if !providers.Known(provider) {
		return nil, apierr.New(apierr.OAuthProviderNotFound)
	}
	c := ProviderConfig{ProjectID: projectID, Provider: provider}
	var sealed string
	err := m.d.DB.Read().QueryRowContext(ctx, `SELECT client_id, client_secret, issuer, authorize_url, token_url, api_url
		FROM oauth_provider_configs WHERE project_id = $1 AND provider = $2`, projectID, provider).
		Scan(&c.ClientID, &sealed, &c.Issuer, &c.AuthorizeURL, &c.TokenURL, &c.APIURL)
	if err != nil {
		if errors.Is(store.MapError(err), store.ErrNotFound) {
			return nil, apierr.New(apierr.OAuthConfigNotFound).WithDetails(map[string]any{"provider": provider})
		}
		return nil, fmt.Errorf("oauth: load %s config: %w", provider, err)
	}
	if c.ClientSecret, err = ClientSecretColumn.OpenStored(m.d.Box, configID(projectID, provider), sealed); err != nil {
		return nil, fmt.Errorf("oauth: open %s client secret: %w", provider, err)
	}
	return &c, nil
}

// provider builds the configured provider of a project.
func (m *Module) provider(ctx context.Context, projectID, name string) (providers.Provider, *ProviderConfig, error) {
	c, err := m.LoadConfig(ctx, projectID, name)
	if err != nil {
		return nil, nil, err
	}
	p, err := m.factory.New(ctx, name, c.Config)
	if err != nil {
		return nil, nil, apierr.Wrap(apierr.OAuthFlowCallbackError, err).
			WithMessage("The OAuth provider's configuration could not be read. Please try again.")
	}
	return p, c, nil
}
