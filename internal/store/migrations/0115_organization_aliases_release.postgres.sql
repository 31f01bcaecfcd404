-- A release from before 0111 still running beside this one during a
-- rolling deploy renames an organization in organizations only: the row of
-- the name it gave up stayed in organization_aliases, pointing at an
-- organization that no longer has that name, and nothing removed it, so
-- the name was refused to every other organization for good (as a slug and
-- as an external id). This trigger lets the database keep the table right
-- whoever writes: when an UPDATE changes an organization's slug or
-- external id, the organization's rows of names it holds in neither column
-- any more go. This release's own writes are unchanged by it: UpdateIn
-- writes the row, then organization.writeAliases deletes the same rows and
-- takes the new names; a name is taken only by inserting its row, which
-- this trigger never does (the names an older release's write takes
-- without a row are found by writeAliases' fallback read of organizations,
-- aliasHolder). Rows are keyed by organization, so a name another
-- organization holds is never touched.
--
-- IS DISTINCT FROM: an external id may be NULL, and alias <> NULL would
-- keep every row. The function body keeps its semicolons inside lines (the
-- migration runner splits statements at a semicolon that ends a line).
CREATE FUNCTION organization_aliases_release() RETURNS trigger LANGUAGE plpgsql AS $f$ BEGIN
  DELETE FROM organization_aliases WHERE organization_id = NEW.organization_id
    AND alias IS DISTINCT FROM NEW.organization_slug
    AND alias IS DISTINCT FROM NEW.organization_external_id; RETURN NULL; END $f$;
CREATE TRIGGER organization_aliases_release AFTER UPDATE OF organization_slug, organization_external_id ON organizations
FOR EACH ROW WHEN (NEW.organization_slug IS DISTINCT FROM OLD.organization_slug
  OR NEW.organization_external_id IS DISTINCT FROM OLD.organization_external_id)
EXECUTE FUNCTION organization_aliases_release();
-- Renames made by such a replica before this migration: a row whose
-- organization holds its name in neither column goes.
DELETE FROM organization_aliases WHERE NOT EXISTS (SELECT 1 FROM organizations o
    WHERE o.organization_id = organization_aliases.organization_id
    AND (o.organization_slug = organization_aliases.alias OR o.organization_external_id = organization_aliases.alias));
-- And the names such a replica gave without a row (its creates and
-- renames) get theirs, as 0111's backfill did: external ids first, so a
-- name held in both columns by two organizations (such a replica does
-- not check the other column) stays with the external id's, as
-- resolution prefers it.
INSERT INTO organization_aliases (project_id, alias, organization_id)
    SELECT project_id, organization_external_id, organization_id FROM organizations
    WHERE organization_external_id IS NOT NULL AND organization_external_id <> ''
    ON CONFLICT (project_id, alias) DO NOTHING;
INSERT INTO organization_aliases (project_id, alias, organization_id)
    SELECT project_id, organization_slug, organization_id FROM organizations
    WHERE organization_slug <> ''
    ON CONFLICT (project_id, alias) DO NOTHING;
