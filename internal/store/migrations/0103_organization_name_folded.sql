-- Organization names case-folded by the server (organization.foldName),
-- for the organization_name_fuzzy search: SQLite's LOWER() folds ASCII
-- only and PostgreSQL's depends on the database's locale, so neither can
-- fold both sides of the comparison the same way on both engines. Rows
-- written before this migration are folded at start-up
-- (organization.FoldNames), found through the partial index.
ALTER TABLE organizations ADD COLUMN organization_name_folded TEXT;
CREATE INDEX organizations_name_unfolded ON organizations (organization_id) WHERE organization_name_folded IS NULL;
