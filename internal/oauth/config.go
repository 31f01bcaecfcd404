package oauth

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"

	"github.com/latchkey/latchkey/internal/apierr"
	"github.com/latchkey/latchkey/internal/oauth/providers"
	"github.com/latchkey/latchkey/internal/store"
)

// ProviderConfig is what `latchkey project oauth` stores.
type ProviderConfig struct {
	ProjectID string
	Provider  string
	providers.Config
}

// secretAAD binds a sealed client secret to its row.
func secretAAD(projectID, provider string) string { return "oauth:" + projectID + ":" + provider }

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
	for _, u := range []string{c.Issuer, c.AuthorizeURL, c.TokenURL, c.APIURL} {
		if u == "" {
			continue
		}
		p, err := url.Parse(u)
		if err != nil || (p.Scheme != "https" && p.Scheme != "http") || p.Host == "" {
			return fmt.Errorf("oauth: %q is not an absolute http(s) URL", u)
		}
	}
	if _, err := m.d.Projects.ByID(ctx, c.ProjectID); err != nil {
		return fmt.Errorf("oauth: project %s: %w", c.ProjectID, err)
	}
	now := store.Millis(m.d.Clock.Now())
	_, err := m.d.DB.ExecContext(ctx, `INSERT INTO oauth_provider_configs (project_id, provider, client_id, client_secret,
		issuer, authorize_url, token_url, api_url, created_at, updated_at) VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$9)
		ON CONFLICT (project_id, provider) DO UPDATE SET client_id = excluded.client_id, client_secret = excluded.client_secret,
		issuer = excluded.issuer, authorize_url = excluded.authorize_url, token_url = excluded.token_url,
		api_url = excluded.api_url, updated_at = excluded.updated_at`,
		c.ProjectID, c.Provider, strings.TrimSpace(c.ClientID), m.d.Box.Seal(c.ClientSecret, secretAAD(c.ProjectID, c.Provider)),
		c.Issuer, c.AuthorizeURL, c.TokenURL, c.APIURL, now)
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
	if m.d.Box == nil {
		return nil, errors.New("oauth: LATCHKEY_ENCRYPTION_KEY is not set; stored client secrets cannot be opened")
	}
	if c.ClientSecret, err = m.d.Box.Open(sealed, secretAAD(projectID, provider)); err != nil {
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
