-- Connected apps: the OAuth/OIDC clients of a project's identity provider.
-- Secrets are stored as SHA-256 hashes (public clients have none).
CREATE TABLE idp_connected_apps (
    client_id TEXT PRIMARY KEY,
    project_id TEXT NOT NULL REFERENCES projects(project_id) ON DELETE CASCADE,
    client_type TEXT NOT NULL,
    client_name TEXT NOT NULL,
    client_description TEXT NOT NULL,
    status TEXT NOT NULL,
    full_access_allowed BOOLEAN NOT NULL,
    redirect_urls TEXT NOT NULL,
    post_logout_redirect_urls TEXT NOT NULL,
    access_token_expiry_minutes BIGINT NOT NULL,
    access_token_custom_audience TEXT NOT NULL,
    access_token_template_content TEXT NOT NULL,
    id_token_template_content TEXT NOT NULL,
    bypass_consent_for_offline_access BOOLEAN NOT NULL,
    logo_url TEXT NOT NULL,
    secret_hash TEXT NOT NULL,
    secret_last_four TEXT NOT NULL,
    next_secret_hash TEXT NOT NULL,
    next_secret_last_four TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL
);
CREATE INDEX idp_connected_apps_page ON idp_connected_apps (project_id, created_at, client_id);

-- Consent on record: the scopes a member granted a connected app. Revoking
-- an app for a member deletes the row (and the provider's tokens).
CREATE TABLE idp_grants (
    member_id TEXT NOT NULL REFERENCES members(member_id) ON DELETE CASCADE,
    client_id TEXT NOT NULL REFERENCES idp_connected_apps(client_id) ON DELETE CASCADE,
    organization_id TEXT NOT NULL REFERENCES organizations(organization_id) ON DELETE CASCADE,
    scopes TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL,
    PRIMARY KEY (member_id, client_id)
);
CREATE INDEX idp_grants_org ON idp_grants (organization_id, client_id);
CREATE INDEX idp_grants_client ON idp_grants (client_id);
