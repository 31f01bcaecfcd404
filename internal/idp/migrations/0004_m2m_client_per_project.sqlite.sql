-- M2M client ids are unique per project, not across the server: a customer
-- may choose its client ids, and a global key let one project see (by the
-- conflict) or take first an id another project chose. SQLite cannot alter
-- a primary key, so the table is rebuilt with the rows copied as they are.
CREATE TABLE m2m_clients_rebuilt (
    client_id TEXT NOT NULL,
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
    updated_at BIGINT NOT NULL,
    PRIMARY KEY (project_id, client_id)
);
INSERT INTO m2m_clients_rebuilt (client_id, project_id, client_name, client_description, status, scopes, trusted_metadata,
    secret_hash, secret_last_four, next_secret_hash, next_secret_last_four, created_at, updated_at)
SELECT client_id, project_id, client_name, client_description, status, scopes, trusted_metadata,
    secret_hash, secret_last_four, next_secret_hash, next_secret_last_four, created_at, updated_at
FROM m2m_clients;
DROP TABLE m2m_clients;
ALTER TABLE m2m_clients_rebuilt RENAME TO m2m_clients;
CREATE INDEX m2m_clients_page ON m2m_clients (project_id, created_at, client_id);
