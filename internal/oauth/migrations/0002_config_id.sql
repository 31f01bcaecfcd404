-- A single-column key for each provider configuration, so its client
-- secret is sealed at rest like every other secret (package atrest,
-- app.SealedColumns, which bind a sealed value to its row by one key).
-- Secrets sealed by earlier versions are resealed for this key at start-up
-- (Module.MigrateSecrets).
ALTER TABLE oauth_provider_configs ADD COLUMN config_id TEXT NOT NULL DEFAULT '';
UPDATE oauth_provider_configs SET config_id = project_id || ':' || provider;
CREATE UNIQUE INDEX oauth_provider_configs_config_id ON oauth_provider_configs(config_id);
