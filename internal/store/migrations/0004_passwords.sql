-- Passwords (issue 4): project strength policy and PKCE flag, password
-- credentials, reset tokens and lockout counters.

ALTER TABLE projects ADD COLUMN password_strength_policy TEXT NOT NULL DEFAULT 'zxcvbn';
ALTER TABLE projects ADD COLUMN luds_min_password_length INTEGER NOT NULL DEFAULT 8;
ALTER TABLE projects ADD COLUMN luds_min_password_complexity INTEGER NOT NULL DEFAULT 3;
ALTER TABLE projects ADD COLUMN pkce_required_for_password_resets BOOLEAN NOT NULL DEFAULT FALSE;

-- One password per email address in a project: members of several
-- organizations with the same email share it (cross-organization
-- passwords), which is what discovery login by password needs. hash is a
-- self-describing string (argon2id PHC, or an imported format until the
-- next login upgrades it).
CREATE TABLE member_passwords (
    password_id TEXT PRIMARY KEY,
    project_id TEXT NOT NULL REFERENCES projects(project_id) ON DELETE CASCADE,
    email_address TEXT NOT NULL,
    hash TEXT NOT NULL,
    require_reset BOOLEAN NOT NULL DEFAULT FALSE,
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL,
    UNIQUE (project_id, email_address)
);

-- Reset tokens, stored as SHA-256 hashes; single use through used_at.
-- Organization resets name the member; discovery resets only the email.
CREATE TABLE password_resets (
    reset_id TEXT PRIMARY KEY,
    project_id TEXT NOT NULL REFERENCES projects(project_id) ON DELETE CASCADE,
    organization_id TEXT REFERENCES organizations(organization_id) ON DELETE CASCADE,
    member_id TEXT REFERENCES members(member_id) ON DELETE CASCADE,
    email_address TEXT NOT NULL,
    token_hash TEXT NOT NULL UNIQUE,
    pkce_code_challenge TEXT NOT NULL DEFAULT '',
    created_at BIGINT NOT NULL,
    expires_at BIGINT NOT NULL,
    used_at BIGINT
);
CREATE INDEX password_resets_email ON password_resets(project_id, email_address);

-- Failed password checks per hashed key (an email of a project, or a client
-- address): failures counted in a window, and a lock once over the limit.
CREATE TABLE password_lockouts (
    lock_key TEXT PRIMARY KEY,
    failures INTEGER NOT NULL,
    window_start BIGINT NOT NULL,
    locked_until BIGINT NOT NULL DEFAULT 0
);
