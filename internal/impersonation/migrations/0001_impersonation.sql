-- Impersonation tokens: an operator (latchkey member impersonate) lets
-- a support engineer log in as one member. Only the token's SHA-256 is
-- stored; used_at spends it once; expires_at is minutes after created_at.
-- The impersonator is copied into the session's factor and the audit log.
CREATE TABLE impersonation_tokens (
    token_id TEXT PRIMARY KEY,
    project_id TEXT NOT NULL REFERENCES projects(project_id) ON DELETE CASCADE,
    organization_id TEXT NOT NULL REFERENCES organizations(organization_id) ON DELETE CASCADE,
    member_id TEXT NOT NULL REFERENCES members(member_id) ON DELETE CASCADE,
    impersonator_id TEXT NOT NULL,
    impersonator_email TEXT NOT NULL,
    token_hash TEXT NOT NULL UNIQUE,
    created_at BIGINT NOT NULL,
    expires_at BIGINT NOT NULL,
    used_at BIGINT
);
CREATE INDEX impersonation_tokens_member ON impersonation_tokens(member_id);
CREATE INDEX impersonation_tokens_expires ON impersonation_tokens(expires_at);
