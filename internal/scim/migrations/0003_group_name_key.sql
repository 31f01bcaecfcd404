-- Group displayName is not case-exact (RFC 7643 4.2, as the /Schemas
-- answer says): "Engineering" and "engineering" are one group for
-- uniqueness and for a displayName filter. The folded name is computed in
-- Go (strings.ToLower), as users' user_name_key is, so both engines fold
-- alike.
--
-- As first released, this migration made the key unique here, from SQL's
-- lower(): that failed to apply (and the server to start) where a
-- connection held names differing only in case, which the case-exact
-- index before it allowed, and left non-ASCII names unfolded on SQLite.
-- The index is now a plain one, so the migration applies everywhere;
-- 0005 and the start-up pass scim.FoldGroupNames refold every key in Go,
-- settle names that share one, and make the key unique.
ALTER TABLE scim_groups ADD COLUMN display_name_key TEXT NOT NULL DEFAULT '';
UPDATE scim_groups SET display_name_key = lower(display_name);
DROP INDEX scim_groups_name;
CREATE INDEX scim_groups_name ON scim_groups(connection_id, display_name_key);
