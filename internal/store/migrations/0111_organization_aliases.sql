-- organization_aliases: the names the backend face resolves to an
-- organization besides its id (organization.ResolveOrganization), its slug
-- and its external id, as one namespace per project. Each column has its
-- own unique index on organizations, but not against the other: a stranger
-- could choose a slug (discovery's create, organizations/me) equal to
-- another organization's external id, which only the customer's backend
-- sets, and every backend call naming that external id reached the
-- stranger's organization. The key here makes a name belong to at most one
-- organization of a project, whichever column holds it, even under
-- concurrent writes; an organization whose slug is its own external id
-- holds one row. The rows are written in the transaction that writes the
-- organization (organization.writeAliases).
--
-- Backfill: external ids first, so that where an older database already
-- holds a slug equal to another organization's external id, the name stays
-- with the organization the customer's backend named (as resolution now
-- prefers it); the slug's organization keeps its slug but not the row.
-- The WHERE clauses also keep SQLite from reading ON CONFLICT as a join's.
CREATE TABLE organization_aliases (
    project_id TEXT NOT NULL,
    alias TEXT NOT NULL,
    organization_id TEXT NOT NULL REFERENCES organizations(organization_id) ON DELETE CASCADE,
    PRIMARY KEY (project_id, alias)
);
CREATE INDEX organization_aliases_org ON organization_aliases(organization_id);
INSERT INTO organization_aliases (project_id, alias, organization_id)
    SELECT project_id, organization_external_id, organization_id FROM organizations
    WHERE organization_external_id IS NOT NULL AND organization_external_id <> ''
    ON CONFLICT (project_id, alias) DO NOTHING;
INSERT INTO organization_aliases (project_id, alias, organization_id)
    SELECT project_id, organization_slug, organization_id FROM organizations
    WHERE organization_slug <> ''
    ON CONFLICT (project_id, alias) DO NOTHING;
