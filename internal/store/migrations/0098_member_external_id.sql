-- A member's external_id (the Node client's create and update field): the
-- customer's own identifier for the member, unique within an organization
-- (duplicate_member_external_id) and free across organizations. '' is no
-- id, and any number of members may have none.
ALTER TABLE members ADD COLUMN external_id TEXT NOT NULL DEFAULT '';
CREATE UNIQUE INDEX members_org_external_id ON members(organization_id, external_id) WHERE external_id <> '';
