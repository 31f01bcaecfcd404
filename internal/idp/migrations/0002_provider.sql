-- The provider's per-project settings: the operator's page that mounts the
-- widget is the authorization endpoint.
CREATE TABLE idp_settings (
    project_id TEXT PRIMARY KEY REFERENCES projects(project_id) ON DELETE CASCADE,
    authorization_url TEXT NOT NULL,
    updated_at BIGINT NOT NULL
);

-- Issued tokens. Refresh tokens are stored by the hash of the token,
-- access tokens (JWTs) by the hash of their jti. A family is everything
-- one authorization code produced; reuse of a spent refresh token or of
-- the code revokes the whole family (RFC 9700 4.14, RFC 6749 4.1.2).
CREATE TABLE idp_tokens (
    token_hash TEXT PRIMARY KEY,
    kind TEXT NOT NULL,
    family_id TEXT NOT NULL,
    project_id TEXT NOT NULL REFERENCES projects(project_id) ON DELETE CASCADE,
    client_id TEXT NOT NULL REFERENCES idp_connected_apps(client_id) ON DELETE CASCADE,
    member_id TEXT NOT NULL REFERENCES members(member_id) ON DELETE CASCADE,
    organization_id TEXT NOT NULL,
    scopes TEXT NOT NULL,
    code_hash TEXT NOT NULL,
    auth_time BIGINT NOT NULL,
    created_at BIGINT NOT NULL,
    expires_at BIGINT NOT NULL,
    used_at BIGINT,
    revoked_at BIGINT
);
CREATE INDEX idp_tokens_family ON idp_tokens (family_id);
CREATE INDEX idp_tokens_code ON idp_tokens (code_hash);
CREATE INDEX idp_tokens_member_client ON idp_tokens (member_id, client_id);
