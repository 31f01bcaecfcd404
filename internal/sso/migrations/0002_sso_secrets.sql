-- Connections' private keys (SAML signing and encryption) and OIDC client
-- secrets, each sealed at rest in a row of its own (package atrest,
-- app.SealedColumns) rather than inside the config JSON: secret_id is the
-- key's id, or the connection's id for a client secret. Values sealed
-- inside config by earlier versions are moved here at start-up
-- (Service.MigrateSecrets).
CREATE TABLE sso_secrets (
    secret_id TEXT PRIMARY KEY,
    connection_id TEXT NOT NULL REFERENCES sso_connections(connection_id) ON DELETE CASCADE,
    secret TEXT NOT NULL
);
CREATE INDEX sso_secrets_connection ON sso_secrets(connection_id);
