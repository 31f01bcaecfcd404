-- Spent trusted auth tokens by project and issuer, not by profile: 0001's
-- trusted_auth_token_uses was keyed by profile and deleted with it, so a
-- token spent through one profile was accepted again through another
-- profile of the same issuer, or once its profile was deleted and created
-- again (tokens live up to a day). These rows outlive their profile; they
-- go with the project, or when swept after the token expired.
--
-- token_hash is the SHA-256 of what spends the token: its token id claim,
-- and its signed claims (see trustedauth.identity). expires_at is the
-- token's exp plus the verifiers' clock allowance; rows are swept some
-- minutes after it, so a replica whose clock runs ahead never removes one
-- that a replica whose clock runs behind still needs.
CREATE TABLE trusted_auth_spent_tokens (
    project_id TEXT NOT NULL REFERENCES projects(project_id) ON DELETE CASCADE,
    issuer TEXT NOT NULL,
    token_hash TEXT NOT NULL,
    expires_at BIGINT NOT NULL,
    PRIMARY KEY (project_id, issuer, token_hash)
);
CREATE INDEX trusted_auth_spent_tokens_expires ON trusted_auth_spent_tokens(expires_at);

-- Tokens spent before this migration stay spent. trusted_auth_token_uses
-- itself stays: a replica of the previous release still writes it during a
-- rolling deploy; it is swept as before, and a later release drops it.
INSERT INTO trusted_auth_spent_tokens (project_id, issuer, token_hash, expires_at)
SELECT p.project_id, p.issuer, u.token_hash, MAX(u.expires_at)
FROM trusted_auth_token_uses u JOIN trusted_auth_token_profiles p ON p.profile_id = u.profile_id
GROUP BY p.project_id, p.issuer, u.token_hash;
