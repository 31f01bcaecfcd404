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
//
// It looks only at the values not yet recorded as sealed for their row
// (oauth migration 0007, checked), found through a partial index: once
// they are, a start reads nothing, however many registrations there are.
// The values are read and opened outside any transaction and written in
// one transaction per batch, each only while it still holds what was read.
func (m *Module) MigrateSecrets(ctx context.Context) (int, error) {
	n, _, err := m.migrateSecrets(ctx)
	return n, err
}

// migrateSecrets is MigrateSecrets, reporting also how many rows it read.
func (m *Module) migrateSecrets(ctx context.Context) (resealed, read int, err error) {
	// Rows written by a replica of an earlier version during a rolling
	// update have no key yet.
	if _, err := m.d.DB.ExecContext(ctx, `UPDATE oauth_provider_configs SET config_id = project_id || ':' || provider
		WHERE config_id = ''`); err != nil {
		return 0, 0, fmt.Errorf("oauth: migrate secrets: %w", err)
	}
	for _, p := range []checkPass{clientSecretPass, tokensPass} {
		n, r, err := m.reseal(ctx, p)
		resealed, read = resealed+n, read+r
		if err != nil {
			return resealed, read, err
		}
	}
	return resealed, read, nil
}

// checkPass is one column's values to look at: query reads, after the key
// $1 and in key order, the key, stored value and the associated data of
// the earlier versions' sealing of at most checkBatch rows whose value is
// not recorded as sealed for its row (the predicate of its partial index,
// oauth migration 0007, repeated text for text); mark records it for the
// value $1 (every statement of this release that writes the column sets
// it the same way).
type checkPass struct {
	col   atrest.Column
	query string
	mark  string
}

// checkBatch bounds the rows MigrateSecrets reads, and writes in one
// transaction, at a time: the LIMIT of the passes' queries.
const checkBatch = 500

var (
	clientSecretPass = checkPass{col: ClientSecretColumn,
		query: `SELECT config_id, client_secret, 'oauth:' || project_id || ':' || provider FROM oauth_provider_configs
			WHERE client_secret <> '' AND client_secret_checked <> substr(client_secret, 5, 16) AND config_id > $1
			ORDER BY config_id LIMIT 500`,
		mark: `client_secret_checked = substr($1, 5, 16)`}
	tokensPass = checkPass{col: TokensColumn,
		query: `SELECT registration_id, tokens, 'oauth-tokens:' || project_id FROM member_oauth_registrations
			WHERE tokens <> '' AND tokens_checked <> substr(tokens, 5, 16) AND registration_id > $1
			ORDER BY registration_id LIMIT 500`,
		mark: `tokens_checked = substr($1, 5, 16)`}
)

// reseal looks at p's unchecked values in keyset batches: one that opens
// for its row is recorded as checked, one sealed the earlier way is
// resealed for its row (and recorded), and plaintext is left to
// SealExisting (the next start records it). It returns how many values it
// resealed and how many rows it read.
func (m *Module) reseal(ctx context.Context, p checkPass) (resealed, read int, err error) {
	col := p.col
	type row struct{ id, stored, legacyAAD, next string }
	after := ""
	for {
		var batch []row
		err := func() error {
			rows, err := m.d.DB.Read().QueryContext(ctx, p.query, after)
			if err != nil {
				return err
			}
			defer rows.Close()
			for rows.Next() {
				var r row
				if err := rows.Scan(&r.id, &r.stored, &r.legacyAAD); err != nil {
					return err
				}
				batch = append(batch, r)
			}
			return rows.Err()
		}()
		if err != nil {
			return resealed, read, fmt.Errorf("oauth: migrate %s: %w", col.Column, err)
		}
		read += len(batch)
		if len(batch) == 0 {
			return resealed, read, nil
		}
		after = batch[len(batch)-1].id
		var work []row
		for _, r := range batch {
			if !secretbox.IsSealed(r.stored) {
				continue // plaintext is SealExisting's
			}
			if m.d.Box == nil {
				return resealed, read, atrest.ErrNoKey
			}
			if _, err := col.OpenStored(m.d.Box, r.id, r.stored); err != nil {
				plain, err := m.d.Box.Open(r.stored, r.legacyAAD)
				if err != nil {
					return resealed, read, fmt.Errorf("oauth: open %s %s: %w", col.Column, r.id, err)
				}
				if r.next, err = col.SealStored(m.d.Box, r.id, plain); err != nil {
					return resealed, read, err
				}
			}
			work = append(work, r)
		}
		n := 0
		err = m.d.DB.Tx(ctx, func(q store.Querier) error {
			if len(work) == 0 {
				return nil
			}
			n = 0
			for _, r := range work {
				// A row rewritten since it was read is the writer's: its
				// value is this release's, recorded, or an earlier one's,
				// unrecorded and looked at by the next start.
				stmt, args := `UPDATE `+col.Table+` SET `+p.mark+` WHERE `+col.Key+` = $2 AND `+col.Column+` = $1`, []any{r.stored, r.id}
				if r.next != "" {
					stmt = `UPDATE ` + col.Table + ` SET ` + col.Column + ` = $1, ` + p.mark + ` WHERE ` + col.Key + ` = $2 AND ` + col.Column + ` = $3`
					args = []any{r.next, r.id, r.stored}
				}
				res, err := q.ExecContext(ctx, stmt, args...)
				if err != nil {
					return fmt.Errorf("oauth: reseal %s %s: %w", col.Column, r.id, err)
				}
				if k, _ := res.RowsAffected(); k > 0 && r.next != "" {
					n++
				}
			}
			return nil
		})
		resealed += n
		if err != nil {
			return resealed, read, err
		}
		if len(batch) < checkBatch {
			return resealed, read, nil
		}
	}
}

// ConfigChange is what SaveConfig changed, for the caller's audit event:
// Created when the provider had no configuration, else the names of the
// settings it changed ("client_secret" among them when the secret differs;
// never a value).
type ConfigChange struct {
	Created bool
	Changed []string
}

// ConfigAlso is work a caller joins to SaveConfig, run in its transaction
// with what it changed: if it fails, nothing is saved.
type ConfigAlso func(q store.Querier, c ConfigChange) error

// SaveConfig stores (or replaces) a provider's configuration; the client
// secret is sealed with the server's encryption key.
func (m *Module) SaveConfig(ctx context.Context, c ProviderConfig, also ...ConfigAlso) error {
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
	return m.d.DB.Tx(ctx, func(q store.Querier) error {
		change, err := m.configChange(ctx, q, c)
		if err != nil {
			return err
		}
		// client_secret_checked records the secret as sealed for its row
		// (clientSecretPass).
		_, err = q.ExecContext(ctx, `INSERT INTO oauth_provider_configs (project_id, provider, client_id, client_secret,
			issuer, authorize_url, token_url, api_url, created_at, updated_at, config_id, client_secret_checked)
			VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$9,$10,substr($4, 5, 16))
			ON CONFLICT (project_id, provider) DO UPDATE SET client_id = excluded.client_id, client_secret = excluded.client_secret,
			client_secret_checked = excluded.client_secret_checked, issuer = excluded.issuer, authorize_url = excluded.authorize_url, token_url = excluded.token_url,
			api_url = excluded.api_url, updated_at = excluded.updated_at`,
			c.ProjectID, c.Provider, strings.TrimSpace(c.ClientID), sealed,
			c.Issuer, c.AuthorizeURL, c.TokenURL, c.APIURL, now, id)
		if err != nil {
			return fmt.Errorf("oauth: save %s config: %w", c.Provider, err)
		}
		for _, f := range also {
			if err := f(q, change); err != nil {
				return err
			}
		}
		return nil
	})
}

// configChange compares c with the provider's stored configuration, read
// in q. A stored secret that cannot be opened counts as changed.
func (m *Module) configChange(ctx context.Context, q store.Querier, c ProviderConfig) (ConfigChange, error) {
	var old providers.Config
	var sealed string
	err := q.QueryRowContext(ctx, `SELECT client_id, client_secret, issuer, authorize_url, token_url, api_url
		FROM oauth_provider_configs WHERE project_id = $1 AND provider = $2`, c.ProjectID, c.Provider).
		Scan(&old.ClientID, &sealed, &old.Issuer, &old.AuthorizeURL, &old.TokenURL, &old.APIURL)
	if errors.Is(store.MapError(err), store.ErrNotFound) {
		return ConfigChange{Created: true}, nil
	}
	if err != nil {
		return ConfigChange{}, fmt.Errorf("oauth: read %s config: %w", c.Provider, err)
	}
	var ch ConfigChange
	for _, f := range []struct {
		name     string
		old, new string
	}{{"client_id", old.ClientID, strings.TrimSpace(c.ClientID)}, {"issuer", old.Issuer, c.Issuer},
		{"authorize_url", old.AuthorizeURL, c.AuthorizeURL}, {"token_url", old.TokenURL, c.TokenURL}, {"api_url", old.APIURL, c.APIURL}} {
		if f.old != f.new {
			ch.Changed = append(ch.Changed, f.name)
		}
	}
	if s, err := ClientSecretColumn.OpenStored(m.d.Box, configID(c.ProjectID, c.Provider), sealed); err != nil || s != c.ClientSecret {
		ch.Changed = append(ch.Changed, "client_secret")
	}
	return ch, nil
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
