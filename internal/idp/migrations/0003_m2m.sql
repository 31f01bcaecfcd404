-- Machine-to-machine clients: a service authenticates with its client id
-- and secret (stored hashed) and receives scoped access tokens through the
-- client_credentials grant.
CREATE TABLE m2m_clients (
    client_id TEXT PRIMARY KEY,
    project_id TEXT NOT NULL REFERENCES projects(project_id) ON DELETE CASCADE,
    client_name TEXT NOT NULL,
    client_description TEXT NOT NULL,
    status TEXT NOT NULL,
    scopes TEXT NOT NULL,
    trusted_metadata TEXT NOT NULL,
    secret_hash TEXT NOT NULL,
    secret_last_four TEXT NOT NULL,
    next_secret_hash TEXT NOT NULL,
    next_secret_last_four TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL
);
CREATE INDEX m2m_clients_page ON m2m_clients (project_id, created_at, client_id);
