-- When a counter's lock began, so a member's answer can show
-- lock_created_at beside lock_expires_at (locked_until). The start was not
-- kept before, and locked_until minus the rule's lock length would be
-- wrong for a lock a concurrent failure extended, so locks running when
-- this migration ran keep 0, "not known": their members show
-- lock_expires_at without lock_created_at until they end (an hour at most).
ALTER TABLE attempt_counters ADD COLUMN locked_at BIGINT NOT NULL DEFAULT 0;
