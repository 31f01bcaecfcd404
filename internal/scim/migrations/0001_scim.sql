-- SCIM provisioning: an organization's connection (at most one), the
-- groups its identity provider pushes, their members, and the members it
-- provisioned (registrations).

-- Bearer tokens are kept as SHA-256 hashes with their last four characters
-- (clientsecret.Pair); next_* hold the second token of a rotation in
-- progress. group_roles is scim_group_implicit_role_assignments as JSON.
-- organization_id is unique: one SCIM connection per organization.
CREATE TABLE scim_connections (
    connection_id TEXT PRIMARY KEY,
    project_id TEXT NOT NULL REFERENCES projects(project_id) ON DELETE CASCADE,
    organization_id TEXT NOT NULL REFERENCES organizations(organization_id) ON DELETE CASCADE,
    display_name TEXT NOT NULL,
    identity_provider TEXT NOT NULL,
    token_hash TEXT NOT NULL,
    token_last_four TEXT NOT NULL,
    token_expires_at BIGINT NOT NULL,
    next_token_hash TEXT NOT NULL DEFAULT '',
    next_token_last_four TEXT NOT NULL DEFAULT '',
    next_token_expires_at BIGINT NOT NULL DEFAULT 0,
    group_roles TEXT NOT NULL DEFAULT '[]',
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL
);
CREATE UNIQUE INDEX scim_connections_org ON scim_connections(organization_id);

-- A group as the identity provider named it; display_name is unique per
-- connection (the uniqueness the SCIM API reports).
CREATE TABLE scim_groups (
    group_id TEXT PRIMARY KEY,
    connection_id TEXT NOT NULL REFERENCES scim_connections(connection_id) ON DELETE CASCADE,
    organization_id TEXT NOT NULL,
    display_name TEXT NOT NULL,
    external_id TEXT NOT NULL DEFAULT '',
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL
);
CREATE UNIQUE INDEX scim_groups_name ON scim_groups(connection_id, display_name);

CREATE TABLE scim_group_members (
    group_id TEXT NOT NULL REFERENCES scim_groups(group_id) ON DELETE CASCADE,
    member_id TEXT NOT NULL REFERENCES members(member_id) ON DELETE CASCADE,
    created_at BIGINT NOT NULL,
    PRIMARY KEY (group_id, member_id)
);
CREATE INDEX scim_group_members_member ON scim_group_members(member_id);

-- A member the connection provisioned. user_name_key is the userName
-- lowercased (SCIM compares userName case-insensitively); attributes is
-- the user resource as last written, as JSON. A member has at most one
-- registration (an organization has at most one connection).
CREATE TABLE scim_registrations (
    registration_id TEXT PRIMARY KEY,
    connection_id TEXT NOT NULL REFERENCES scim_connections(connection_id) ON DELETE CASCADE,
    organization_id TEXT NOT NULL,
    member_id TEXT NOT NULL REFERENCES members(member_id) ON DELETE CASCADE,
    user_name_key TEXT NOT NULL,
    external_id TEXT NOT NULL DEFAULT '',
    attributes TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL
);
CREATE UNIQUE INDEX scim_registrations_member ON scim_registrations(member_id);
CREATE UNIQUE INDEX scim_registrations_user_name ON scim_registrations(connection_id, user_name_key);
CREATE INDEX scim_registrations_external ON scim_registrations(connection_id, external_id);
