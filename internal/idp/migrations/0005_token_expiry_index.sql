-- The sweeper deletes expired tokens in batches by expires_at; without an
-- index each batch rescanned the table.
CREATE INDEX idp_tokens_expires ON idp_tokens(expires_at);
