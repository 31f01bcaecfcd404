-- External connections: an organization's use of another organization's
-- SAML or OIDC connection (the source). source_connection_id names it
-- (NULL for SAML and OIDC connections). The service deletes an external
-- connection with its source and refreshes its organization's summary
-- (Service.remove, Service.BeforeOrganizationDelete); the cascade is the
-- backstop that leaves no external connection pointing at nothing, so no
-- login path survives its source.
ALTER TABLE sso_connections ADD COLUMN source_connection_id TEXT
    REFERENCES sso_connections(connection_id) ON DELETE CASCADE;
CREATE INDEX sso_connections_source ON sso_connections(source_connection_id);
