-- Group name keys folded by the server. 0003 filled the keys of the
-- groups it found with SQL's lower() (ASCII only on SQLite, per locale on
-- PostgreSQL); where it applied as first released, it also made them
-- unique. Here every key is marked unfolded ('', which no name folds to)
-- and its index dropped, whichever 0003 made; the start-up pass
-- scim.FoldGroupNames, run after the migrations, folds the keys in Go,
-- gives the groups that then share a key distinct ones (the oldest keeps
-- its name's) and creates the unique index scim_groups_name_key.
DROP INDEX scim_groups_name;
UPDATE scim_groups SET display_name_key = '';
CREATE INDEX scim_groups_name_unfolded ON scim_groups (group_id) WHERE display_name_key = '';
