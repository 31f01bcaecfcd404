-- Issue 10 (RBAC): a member's explicitly assigned roles, as a JSON list of
-- role ids (stytch_member, which every member holds, is not stored). Roles
-- granted by the organization's email assignments and by SSO are computed
-- when a member is read, so they follow their sources.
ALTER TABLE members ADD COLUMN roles TEXT NOT NULL DEFAULT '[]';
-- is_admin was the whole role model before RBAC: it becomes the directly
-- assigned stytch_admin role. The column is no longer read or written.
UPDATE members SET roles = '["stytch_admin"]' WHERE is_admin = TRUE;
