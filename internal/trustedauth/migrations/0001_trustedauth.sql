-- Trusted auth token profiles: an outside issuer whose signed JWTs
-- b2b/sessions/attest accepts, and the token ids already redeemed.

-- public_key_type is jwk (keys fetched from jwks_url) or pem (pem_files, a
-- JSON list of {pem_file_id, public_key}); attribute_mapping is a JSON
-- object naming the claims that carry the email and the other fields.
CREATE TABLE trusted_auth_token_profiles (
    profile_id TEXT PRIMARY KEY,
    project_id TEXT NOT NULL REFERENCES projects(project_id) ON DELETE CASCADE,
    name TEXT NOT NULL,
    issuer TEXT NOT NULL,
    audience TEXT NOT NULL,
    public_key_type TEXT NOT NULL,
    jwks_url TEXT NOT NULL,
    pem_files TEXT NOT NULL,
    attribute_mapping TEXT NOT NULL,
    can_jit_provision BOOLEAN NOT NULL,
    active BOOLEAN NOT NULL,
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL
);
CREATE INDEX trusted_auth_token_profiles_project ON trusted_auth_token_profiles(project_id, created_at);

-- Token ids (hashed) already exchanged for a session, kept until the token
-- would have expired anyway; the primary key makes a replay fail even when
-- two replicas receive the same token at once.
CREATE TABLE trusted_auth_token_uses (
    profile_id TEXT NOT NULL REFERENCES trusted_auth_token_profiles(profile_id) ON DELETE CASCADE,
    token_hash TEXT NOT NULL,
    expires_at BIGINT NOT NULL,
    PRIMARY KEY (profile_id, token_hash)
);
CREATE INDEX trusted_auth_token_uses_expires ON trusted_auth_token_uses(expires_at);
