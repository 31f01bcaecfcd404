-- M2M client ids are unique per project, not across the server: a customer
-- may choose its client ids, and a global key let one project see (by the
-- conflict) or take first an id another project chose. PostgreSQL swaps
-- the key in place (the SQLite variant rebuilds the table); the page index
-- is untouched.
ALTER TABLE m2m_clients DROP CONSTRAINT m2m_clients_pkey;
ALTER TABLE m2m_clients ADD CONSTRAINT m2m_clients_pkey PRIMARY KEY (project_id, client_id);
