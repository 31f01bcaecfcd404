-- SSO connections, member registrations, and the SAML state that must hold
-- across replicas: AuthnRequests awaiting their response (InResponseTo) and
-- the replay cache of assertion ids.

-- kind is saml, oidc or external; config is the kind's settings as JSON,
-- with private keys and client secrets sealed by the server's secret box.
CREATE TABLE sso_connections (
    connection_id TEXT PRIMARY KEY,
    project_id TEXT NOT NULL REFERENCES projects(project_id) ON DELETE CASCADE,
    organization_id TEXT NOT NULL REFERENCES organizations(organization_id) ON DELETE CASCADE,
    kind TEXT NOT NULL,
    display_name TEXT NOT NULL,
    identity_provider TEXT NOT NULL,
    status TEXT NOT NULL,
    config TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL
);
CREATE INDEX sso_connections_org ON sso_connections(organization_id, created_at);

-- A member's identity at a connection: external_id is the SAML NameID or the
-- OIDC subject. One identity maps to one member.
CREATE TABLE sso_registrations (
    registration_id TEXT PRIMARY KEY,
    project_id TEXT NOT NULL,
    organization_id TEXT NOT NULL REFERENCES organizations(organization_id) ON DELETE CASCADE,
    connection_id TEXT NOT NULL REFERENCES sso_connections(connection_id) ON DELETE CASCADE,
    member_id TEXT NOT NULL REFERENCES members(member_id) ON DELETE CASCADE,
    external_id TEXT NOT NULL,
    sso_attributes TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL
);
CREATE UNIQUE INDEX sso_registrations_identity ON sso_registrations(connection_id, external_id);
CREATE INDEX sso_registrations_member ON sso_registrations(member_id);

-- Assertion ids already consumed, kept until the assertion could no longer
-- be valid anyway; the primary key makes a replay fail even when two
-- replicas receive the same response at once.
CREATE TABLE sso_saml_assertions (
    connection_id TEXT NOT NULL,
    assertion_id TEXT NOT NULL,
    expires_at BIGINT NOT NULL,
    PRIMARY KEY (connection_id, assertion_id)
);
CREATE INDEX sso_saml_assertions_expires ON sso_saml_assertions(expires_at);
