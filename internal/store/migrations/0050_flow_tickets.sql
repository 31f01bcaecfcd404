-- Flow tickets (internal/flowtoken): the single-use, short-lived secrets of
-- browser flows (OAuth state and tokens, SSO relay state and tokens,
-- identity-provider codes). Only the SHA-256 of a ticket is stored; kind
-- keeps one flow's tickets from being redeemed as another's; data is the
-- flow's own JSON; used_at makes redemption single use.
CREATE TABLE flow_tickets (
    ticket_hash TEXT PRIMARY KEY,
    kind TEXT NOT NULL,
    project_id TEXT NOT NULL REFERENCES projects(project_id) ON DELETE CASCADE,
    pkce_code_challenge TEXT NOT NULL DEFAULT '',
    data TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    expires_at BIGINT NOT NULL,
    used_at BIGINT
);
CREATE INDEX flow_tickets_expires ON flow_tickets(expires_at);
