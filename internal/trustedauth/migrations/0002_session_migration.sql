-- Where b2b/sessions/migrate asks who a session of the previous provider
-- belongs to: that provider's OpenID Connect userinfo endpoint.
CREATE TABLE session_migration_settings (
    project_id TEXT PRIMARY KEY REFERENCES projects(project_id) ON DELETE CASCADE,
    userinfo_url TEXT NOT NULL,
    updated_at BIGINT NOT NULL
);
