-- Group displayName is not case-exact (RFC 7643 4.2, as the /Schemas
-- answer says): "Engineering" and "engineering" are one group for
-- uniqueness and for a displayName filter. The folded name is computed in
-- Go (strings.ToLower), as users' user_name_key is, so both engines fold
-- alike; existing rows take SQL's lower(), which folds their ASCII.
ALTER TABLE scim_groups ADD COLUMN display_name_key TEXT NOT NULL DEFAULT '';
UPDATE scim_groups SET display_name_key = lower(display_name);
DROP INDEX scim_groups_name;
CREATE UNIQUE INDEX scim_groups_name ON scim_groups(connection_id, display_name_key);
