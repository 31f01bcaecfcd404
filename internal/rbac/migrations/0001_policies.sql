-- The custom part of each project's RBAC policy (resources, roles and
-- scopes as one JSON document, see rbac.Policy); the built-in part lives
-- in code. One row per project, replaced whole by `latchkey project rbac
-- set`, so a reader never sees half of an update.
CREATE TABLE rbac_policies (
    project_id TEXT PRIMARY KEY REFERENCES projects(project_id) ON DELETE CASCADE,
    policy TEXT NOT NULL,
    updated_at BIGINT NOT NULL
);
