-- Intermediate sessions (ISTs): a verified factor that has not become a
-- session yet (discovery, primary_required, MFA). Single use, 10 minutes.
CREATE TABLE intermediate_sessions (
    intermediate_session_id TEXT PRIMARY KEY,
    project_id TEXT NOT NULL REFERENCES projects(project_id) ON DELETE CASCADE,
    token_hash TEXT NOT NULL UNIQUE,
    email_address TEXT NOT NULL,
    organization_id TEXT NOT NULL DEFAULT '',
    member_id TEXT NOT NULL DEFAULT '',
    authentication_factors TEXT NOT NULL DEFAULT '[]',
    created_at BIGINT NOT NULL,
    expires_at BIGINT NOT NULL,
    used_at BIGINT
);

-- Discovery email secrets are keyed by email (no organization yet).
CREATE TABLE discovery_magic_links (
    discovery_magic_link_id TEXT PRIMARY KEY,
    project_id TEXT NOT NULL REFERENCES projects(project_id) ON DELETE CASCADE,
    email_address TEXT NOT NULL,
    token_hash TEXT NOT NULL UNIQUE,
    pkce_code_challenge TEXT NOT NULL DEFAULT '',
    created_at BIGINT NOT NULL,
    expires_at BIGINT NOT NULL,
    used_at BIGINT
);

CREATE TABLE discovery_email_otps (
    discovery_email_otp_id TEXT PRIMARY KEY,
    project_id TEXT NOT NULL REFERENCES projects(project_id) ON DELETE CASCADE,
    email_address TEXT NOT NULL,
    code_salt TEXT NOT NULL,
    code_hash TEXT NOT NULL,
    failed_attempts INTEGER NOT NULL DEFAULT 0,
    created_at BIGINT NOT NULL,
    expires_at BIGINT NOT NULL,
    used_at BIGINT
);
CREATE INDEX discovery_email_otps_email ON discovery_email_otps(project_id, email_address, created_at);
