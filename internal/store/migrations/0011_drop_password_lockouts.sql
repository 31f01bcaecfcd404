-- Password failures are counted in attempt_counters (0010) like every
-- other credential check; the feature's own table goes.
DROP TABLE password_lockouts;

-- attempt_counters.subject holds the subject as given (not hashed, unlike
-- the buckets): members.project_id || '|' || members.email_address, so a
-- member read can join on it for is_locked.
