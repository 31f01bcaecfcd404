package sso

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/latchkey/latchkey/internal/apierr"
	"github.com/latchkey/latchkey/internal/atrest"
	"github.com/latchkey/latchkey/internal/providertokens"
	"github.com/latchkey/latchkey/internal/secretbox"
	"github.com/latchkey/latchkey/internal/store"
)

// SecretColumn is where connections' private keys and client secrets are
// kept, sealed at rest and bound to their row (app.SealedColumns). In
// memory a connection carries the sealed values in its config
// (storedKey.SealedKey, oidcConfig.ClientSecret); the config JSON is
// stored without them.
var SecretColumn = atrest.Column{Table: "sso_secrets", Key: "secret_id", Column: "secret"}

// TokensColumn is where an OIDC registration's provider tokens are kept,
// sealed at rest and bound to their row (app.SealedColumns).
var TokensColumn = atrest.Column{Table: "sso_registrations", Key: "registration_id", Column: "tokens"}

// sealTokens returns what to store in TokensColumn for registration regID:
// "" for a login without tokens (SAML).
func (s *Service) sealTokens(regID string, t *providertokens.Tokens) (string, error) {
	if t == nil {
		return "", nil
	}
	if s.d.Box == nil {
		return "", apierr.New(apierr.EncryptionKeyNotConfigured)
	}
	return providertokens.Seal(s.d.Box, TokensColumn, regID, *t)
}

// openTokens opens a registration's stored tokens ("" for none).
func (s *Service) openTokens(regID, stored string) (providertokens.Tokens, error) {
	if s.d.Box == nil && secretbox.IsSealed(stored) {
		return providertokens.Tokens{}, apierr.New(apierr.EncryptionKeyNotConfigured)
	}
	return providertokens.Open(s.d.Box, TokensColumn, regID, stored)
}

// seal seals a secret for its sso_secrets row.
func (s *Service) seal(id, plaintext string) (string, error) {
	if s.d.Box == nil {
		return "", apierr.New(apierr.EncryptionKeyNotConfigured)
	}
	return SecretColumn.SealStored(s.d.Box, id, plaintext)
}

// open opens a secret read from its sso_secrets row.
func (s *Service) open(id, stored string) (string, error) {
	if s.d.Box == nil && secretbox.IsSealed(stored) {
		return "", apierr.New(apierr.EncryptionKeyNotConfigured)
	}
	return SecretColumn.OpenStored(s.d.Box, id, stored)
}

// secrets are the connection's sealed secrets by row id.
func (c *conn) secrets() map[string]string {
	out := map[string]string{}
	switch {
	case c.SAML != nil:
		for _, k := range append(append([]storedKey{}, c.SAML.SigningKeys...), c.SAML.EncryptionKeys...) {
			if k.SealedKey != "" {
				out[k.ID] = k.SealedKey
			}
		}
	case c.OIDC != nil && c.OIDC.ClientSecret != "":
		out[c.ID] = c.OIDC.ClientSecret
	}
	return out
}

// storedConfig is the config as stored: the secrets left out.
func (c *conn) storedConfig() any {
	switch c.Kind {
	case KindSAML:
		cfg := *c.SAML
		strip := func(keys []storedKey) []storedKey {
			out := make([]storedKey, len(keys))
			for i, k := range keys {
				k.SealedKey = ""
				out[i] = k
			}
			return out
		}
		cfg.SigningKeys, cfg.EncryptionKeys = strip(cfg.SigningKeys), strip(cfg.EncryptionKeys)
		return &cfg
	case KindOIDC:
		cfg := *c.OIDC
		cfg.ClientSecret = ""
		return &cfg
	}
	return c.External
}

// writeConfig stores the connection's config (without secrets) and
// replaces its rows in sso_secrets.
func (s *Service) writeConfig(ctx context.Context, q store.Querier, c *conn) error {
	cfg, err := json.Marshal(c.storedConfig())
	if err != nil {
		return fmt.Errorf("sso: encode config: %w", err)
	}
	if _, err := q.ExecContext(ctx, `UPDATE sso_connections SET config = $1 WHERE connection_id = $2`, string(cfg), c.ID); err != nil {
		return fmt.Errorf("sso: write config: %w", err)
	}
	if _, err := q.ExecContext(ctx, `DELETE FROM sso_secrets WHERE connection_id = $1`, c.ID); err != nil {
		return fmt.Errorf("sso: clear secrets: %w", err)
	}
	for id, sealed := range c.secrets() {
		if _, err := q.ExecContext(ctx, `INSERT INTO sso_secrets (secret_id, connection_id, secret) VALUES ($1, $2, $3)`,
			id, c.ID, sealed); err != nil {
			return fmt.Errorf("sso: write secret: %w", err)
		}
	}
	return nil
}

// attachSecrets puts the sealed secrets of loaded connections back in
// their configs.
func attachSecrets(ctx context.Context, q store.Querier, conns ...*conn) error {
	for _, c := range conns {
		if c.Kind != KindSAML && c.Kind != KindOIDC {
			continue
		}
		pairs, err := store.Pairs(ctx, q, `SELECT secret_id, secret FROM sso_secrets WHERE connection_id = $1`, c.ID)
		if err != nil {
			return fmt.Errorf("sso: read secrets: %w", err)
		}
		got := map[string]string{}
		for _, p := range pairs {
			got[p[0]] = p[1]
		}
		if c.Kind == KindOIDC {
			c.OIDC.ClientSecret = got[c.ID]
			continue
		}
		for _, keys := range [][]storedKey{c.SAML.SigningKeys, c.SAML.EncryptionKeys} {
			for i := range keys {
				keys[i].SealedKey = got[keys[i].ID]
			}
		}
	}
	return nil
}

// Where earlier versions sealed secrets inside the config JSON.
func legacyKeyAAD(connID, keyID string) string { return "sso:" + connID + ":" + keyID }
func legacySecretAAD(connID string) string     { return "sso:" + connID + ":client_secret" }

// MigrateSecrets moves secrets that earlier versions sealed inside a
// connection's config JSON into sso_secrets, resealed for their row, and
// returns how many it moved. It is idempotent (a config holding no secret
// is left alone); the server runs it at start-up before sealing plaintext.
func (s *Service) MigrateSecrets(ctx context.Context) (int, error) {
	rows, err := s.d.DB.QueryContext(ctx, `SELECT `+connColumns+` FROM sso_connections ORDER BY created_at, connection_id`)
	if err != nil {
		return 0, fmt.Errorf("sso: migrate secrets: %w", err)
	}
	var legacy []*conn
	for rows.Next() {
		c, err := scanConn(rows)
		if err != nil {
			rows.Close()
			return 0, err
		}
		// Freshly scanned, a config holds only what its JSON holds.
		if len(c.secrets()) > 0 {
			legacy = append(legacy, c)
		}
	}
	if err := rows.Close(); err != nil {
		return 0, fmt.Errorf("sso: migrate secrets: %w", err)
	}
	moved := 0
	for _, c := range legacy {
		reseal := func(id, aad, stored string) (string, error) {
			plain := stored
			if secretbox.IsSealed(stored) {
				if s.d.Box == nil {
					return "", atrest.ErrNoKey
				}
				var err error
				if plain, err = s.d.Box.Open(stored, aad); err != nil {
					return "", fmt.Errorf("sso: open %s of %s: %w", id, c.ID, err)
				}
			}
			moved++
			return s.seal(id, plain)
		}
		var err error
		if c.OIDC != nil {
			c.OIDC.ClientSecret, err = reseal(c.ID, legacySecretAAD(c.ID), c.OIDC.ClientSecret)
		}
		if c.SAML != nil {
			for _, keys := range [][]storedKey{c.SAML.SigningKeys, c.SAML.EncryptionKeys} {
				for i := range keys {
					if err == nil && keys[i].SealedKey != "" {
						keys[i].SealedKey, err = reseal(keys[i].ID, legacyKeyAAD(c.ID, keys[i].ID), keys[i].SealedKey)
					}
				}
			}
		}
		if err != nil {
			return moved, err
		}
		if err := s.d.DB.Tx(ctx, func(q store.Querier) error { return s.writeConfig(ctx, q, c) }); err != nil {
			return moved, err
		}
	}
	return moved, nil
}
