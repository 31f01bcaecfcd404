-- Statements that scanned a table growing with traffic (found by
-- internal/app's TestQueriesOnGrowingTablesUseIndexes, issue 12 "cost growth"):
-- retiring a member's pending email-update links, and the reset-token sweep.
CREATE INDEX magic_links_member ON magic_links(member_id);
CREATE INDEX password_resets_expires ON password_resets(expires_at);
