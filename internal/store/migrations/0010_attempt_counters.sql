-- Failure counting (issue 9): one table for every credential check. A row
-- is one rule applied to one key (hashed), with a window that starts at
-- its first attempt, and an optional lock after the limit. Attempts are
-- reserved here before the secret is checked, so a burst of concurrent
-- guesses can never check more than the limit. subject (hashed) lets a
-- member's view ask whether any lock about its email address is active.
CREATE TABLE attempt_counters (
    bucket TEXT PRIMARY KEY,
    subject TEXT NOT NULL DEFAULT '',
    window_start BIGINT NOT NULL,
    hits INTEGER NOT NULL,
    locked_until BIGINT NOT NULL DEFAULT 0
);
CREATE INDEX attempt_counters_subject ON attempt_counters(subject, locked_until);
CREATE INDEX attempt_counters_window ON attempt_counters(window_start);
