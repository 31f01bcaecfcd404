-- A member's row is now deleted outside an organization's deletion: an
-- admin's invite or creation of a deleted, never-verified member's address
-- replaces that member (organization.Store.purgeDeleted), and the row's ON
-- DELETE CASCADE then looks for the member's rows in every referencing
-- table. These two had no index on member_id, so each such invite scanned
-- them (TestQueriesOnGrowingTablesUseIndexes); both are written rarely
-- (a TOTP enrollment, a reset request), so the index costs little.
CREATE INDEX recovery_codes_member ON recovery_codes(member_id);
CREATE INDEX password_resets_member ON password_resets(member_id);
