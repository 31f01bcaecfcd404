-- A release from before 0103 still running beside this one during a
-- rolling deploy writes organization_name only: its renames left the
-- folded name of the old one, so organization_name_fuzzy found the
-- organization by its old name and never by its new one. The folding is
-- Go's (organization.foldName), so the database cannot recompute it; this
-- trigger clears it instead when an UPDATE changes the name and leaves the
-- folded name as it was, and organization.FoldNames, run at start-up and
-- by every sweep, folds the row again. This release writes both in one
-- statement; when a rename keeps the fold ("Acme" to "ACME") it sets the
-- folded name again in the same transaction (organization.Store.UpdateIn).
--
-- SQLite's triggers cannot assign NEW: an AFTER trigger updates the row.
-- It names only organization_name_folded, so it does not fire itself; the
-- change feed's trigger on organizations records the row a second time.
CREATE TRIGGER organizations_name_refold AFTER UPDATE OF organization_name ON organizations FOR EACH ROW
WHEN NEW.organization_name IS NOT OLD.organization_name AND NEW.organization_name_folded IS OLD.organization_name_folded
BEGIN UPDATE organizations SET organization_name_folded = NULL WHERE organization_id = NEW.organization_id; END;
-- Renames made by such a replica before this migration: a folded name that
-- is not the ASCII lower case of the name is folded again. For a name in
-- ASCII the two are the same key; every other name is folded again once,
-- which costs one FoldNames pass and leaves a correct key correct.
UPDATE organizations SET organization_name_folded = NULL
WHERE organization_name_folded <> lower(organization_name);
