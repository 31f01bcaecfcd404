-- The stored attributes that filters compare without regard to case
-- (every filterable one but id, externalId and userName, which have
-- columns of their own), with each string folded by the server (fold):
-- SQLite's lower() folds ASCII only and PostgreSQL's follows the
-- database's locale, so neither can fold both sides of a comparison the
-- same way on both engines. Rows written before this migration are
-- folded at start-up (scim.FoldAttributes), found through the partial
-- index.
ALTER TABLE scim_registrations ADD COLUMN attributes_folded TEXT;
CREATE INDEX scim_registrations_unfolded ON scim_registrations (registration_id) WHERE attributes_folded IS NULL;
