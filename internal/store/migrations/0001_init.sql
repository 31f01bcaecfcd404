-- Portable DDL: TEXT, BIGINT (Unix milliseconds for times), BOOLEAN and
-- INTEGER mean the same on SQLite and PostgreSQL. JSON lives in TEXT.

CREATE TABLE projects (
    project_id TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    env TEXT NOT NULL,
    session_duration_minutes INTEGER NOT NULL DEFAULT 60,
    products TEXT NOT NULL DEFAULT '[]',
    pkce_required_for_email_magic_links BOOLEAN NOT NULL DEFAULT FALSE,
    create_organization_enabled BOOLEAN NOT NULL DEFAULT TRUE,
    disable_sdk_watermark BOOLEAN NOT NULL DEFAULT FALSE,
    slug_pattern TEXT,
    created_at BIGINT NOT NULL
);

CREATE TABLE project_public_tokens (
    public_token TEXT PRIMARY KEY,
    project_id TEXT NOT NULL REFERENCES projects(project_id) ON DELETE CASCADE,
    created_at BIGINT NOT NULL
);
CREATE INDEX project_public_tokens_project ON project_public_tokens(project_id);

CREATE TABLE project_secrets (
    secret_id TEXT PRIMARY KEY,
    project_id TEXT NOT NULL REFERENCES projects(project_id) ON DELETE CASCADE,
    secret_hash TEXT NOT NULL,
    last_four TEXT NOT NULL,
    created_at BIGINT NOT NULL
);
CREATE INDEX project_secrets_project ON project_secrets(project_id);

CREATE TABLE project_redirect_urls (
    project_id TEXT NOT NULL REFERENCES projects(project_id) ON DELETE CASCADE,
    redirect_type TEXT NOT NULL,
    url TEXT NOT NULL,
    is_default BOOLEAN NOT NULL DEFAULT FALSE,
    created_at BIGINT NOT NULL,
    PRIMARY KEY (project_id, redirect_type, url)
);

CREATE TABLE project_origins (
    project_id TEXT NOT NULL REFERENCES projects(project_id) ON DELETE CASCADE,
    origin TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    PRIMARY KEY (project_id, origin)
);
CREATE INDEX project_origins_origin ON project_origins(origin);

CREATE TABLE signing_keys (
    kid TEXT PRIMARY KEY,
    project_id TEXT NOT NULL REFERENCES projects(project_id) ON DELETE CASCADE,
    private_key_pem TEXT NOT NULL,
    active BOOLEAN NOT NULL DEFAULT TRUE,
    created_at BIGINT NOT NULL
);
CREATE INDEX signing_keys_project ON signing_keys(project_id);

CREATE TABLE organizations (
    organization_id TEXT PRIMARY KEY,
    project_id TEXT NOT NULL REFERENCES projects(project_id) ON DELETE CASCADE,
    organization_name TEXT NOT NULL,
    organization_slug TEXT NOT NULL,
    organization_logo_url TEXT NOT NULL DEFAULT '',
    trusted_metadata TEXT NOT NULL DEFAULT '{}',
    email_jit_provisioning TEXT NOT NULL DEFAULT 'NOT_ALLOWED',
    email_allowed_domains TEXT NOT NULL DEFAULT '[]',
    email_invites TEXT NOT NULL DEFAULT 'ALL_ALLOWED',
    auth_methods TEXT NOT NULL DEFAULT 'ALL_ALLOWED',
    allowed_auth_methods TEXT NOT NULL DEFAULT '[]',
    mfa_policy TEXT NOT NULL DEFAULT 'OPTIONAL',
    mfa_methods TEXT NOT NULL DEFAULT 'ALL_ALLOWED',
    allowed_mfa_methods TEXT NOT NULL DEFAULT '[]',
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL,
    UNIQUE (project_id, organization_slug)
);

CREATE TABLE members (
    member_id TEXT PRIMARY KEY,
    organization_id TEXT NOT NULL REFERENCES organizations(organization_id) ON DELETE CASCADE,
    project_id TEXT NOT NULL,
    email_id TEXT NOT NULL,
    email_address TEXT NOT NULL,
    email_address_verified BOOLEAN NOT NULL DEFAULT FALSE,
    status TEXT NOT NULL,
    name TEXT NOT NULL DEFAULT '',
    trusted_metadata TEXT NOT NULL DEFAULT '{}',
    untrusted_metadata TEXT NOT NULL DEFAULT '{}',
    is_breakglass BOOLEAN NOT NULL DEFAULT FALSE,
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL,
    UNIQUE (organization_id, email_address)
);
CREATE INDEX members_project_email ON members(project_id, email_address);

CREATE TABLE member_sessions (
    member_session_id TEXT PRIMARY KEY,
    project_id TEXT NOT NULL,
    organization_id TEXT NOT NULL REFERENCES organizations(organization_id) ON DELETE CASCADE,
    member_id TEXT NOT NULL REFERENCES members(member_id) ON DELETE CASCADE,
    token_hash TEXT NOT NULL UNIQUE,
    authentication_factors TEXT NOT NULL DEFAULT '[]',
    started_at BIGINT NOT NULL,
    last_accessed_at BIGINT NOT NULL,
    expires_at BIGINT NOT NULL,
    revoked_at BIGINT
);
CREATE INDEX member_sessions_member ON member_sessions(member_id);

-- One-time email secrets: magic-link tokens (token_hash) and email OTP codes
-- (code_hash with a per-row salt). used_at makes them single-use: redeeming
-- is one conditional UPDATE ... WHERE used_at IS NULL.
CREATE TABLE magic_links (
    magic_link_id TEXT PRIMARY KEY,
    project_id TEXT NOT NULL,
    organization_id TEXT NOT NULL REFERENCES organizations(organization_id) ON DELETE CASCADE,
    member_id TEXT NOT NULL REFERENCES members(member_id) ON DELETE CASCADE,
    token_hash TEXT NOT NULL UNIQUE,
    purpose TEXT NOT NULL,
    pkce_code_challenge TEXT NOT NULL DEFAULT '',
    created_at BIGINT NOT NULL,
    expires_at BIGINT NOT NULL,
    used_at BIGINT
);

CREATE TABLE email_otps (
    email_otp_id TEXT PRIMARY KEY,
    project_id TEXT NOT NULL,
    organization_id TEXT NOT NULL REFERENCES organizations(organization_id) ON DELETE CASCADE,
    member_id TEXT NOT NULL REFERENCES members(member_id) ON DELETE CASCADE,
    code_salt TEXT NOT NULL,
    code_hash TEXT NOT NULL,
    failed_attempts INTEGER NOT NULL DEFAULT 0,
    created_at BIGINT NOT NULL,
    expires_at BIGINT NOT NULL,
    used_at BIGINT
);
CREATE INDEX email_otps_member ON email_otps(member_id, created_at);

CREATE TABLE rate_limits (
    bucket TEXT NOT NULL,
    window_start BIGINT NOT NULL,
    hits INTEGER NOT NULL,
    PRIMARY KEY (bucket, window_start)
);

CREATE TABLE events (
    event_id TEXT PRIMARY KEY,
    project_id TEXT NOT NULL,
    event_name TEXT NOT NULL,
    details TEXT NOT NULL DEFAULT '{}',
    created_at BIGINT NOT NULL
);
CREATE INDEX events_project ON events(project_id, created_at);

-- Captured outbound messages for the dev mailbox (dev mode only writes here).
CREATE TABLE dev_outbox (
    message_id TEXT PRIMARY KEY,
    channel TEXT NOT NULL,
    recipient TEXT NOT NULL,
    subject TEXT NOT NULL DEFAULT '',
    text_body TEXT NOT NULL DEFAULT '',
    html_body TEXT NOT NULL DEFAULT '',
    created_at BIGINT NOT NULL
);
CREATE INDEX dev_outbox_created ON dev_outbox(created_at);
