-- OAuth (issue 8): each project's provider configuration, the client
-- secret sealed with LATCHKEY_ENCRYPTION_KEY, and the members' OAuth
-- registrations (one per provider account), whose provider tokens are
-- sealed too.
CREATE TABLE oauth_provider_configs (
    project_id TEXT NOT NULL REFERENCES projects(project_id) ON DELETE CASCADE,
    provider TEXT NOT NULL,
    client_id TEXT NOT NULL,
    client_secret TEXT NOT NULL,
    issuer TEXT NOT NULL DEFAULT '',
    authorize_url TEXT NOT NULL DEFAULT '',
    token_url TEXT NOT NULL DEFAULT '',
    api_url TEXT NOT NULL DEFAULT '',
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL,
    PRIMARY KEY (project_id, provider)
);

CREATE TABLE member_oauth_registrations (
    registration_id TEXT PRIMARY KEY,
    project_id TEXT NOT NULL REFERENCES projects(project_id) ON DELETE CASCADE,
    organization_id TEXT NOT NULL REFERENCES organizations(organization_id) ON DELETE CASCADE,
    member_id TEXT NOT NULL REFERENCES members(member_id) ON DELETE CASCADE,
    provider TEXT NOT NULL,
    provider_subject TEXT NOT NULL,
    profile_picture_url TEXT NOT NULL DEFAULT '',
    locale TEXT NOT NULL DEFAULT '',
    provider_tenants TEXT NOT NULL DEFAULT '[]',
    tokens TEXT NOT NULL DEFAULT '',
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL,
    UNIQUE (organization_id, provider, provider_subject)
);
CREATE INDEX member_oauth_registrations_member ON member_oauth_registrations(member_id);
