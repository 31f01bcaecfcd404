-- next_at: for a rule that only slows guessing down (ratelimit.Rule.SlowOnly),
-- when the last turn handed out for the key ends (Unix milliseconds). Past
-- the rule's limit each attempt takes the next turn in the key's line and
-- waits for its end, so concurrent attempts wait one after another instead
-- of side by side; 0 (every row before this migration) is a line ended long ago.
ALTER TABLE attempt_counters ADD COLUMN next_at BIGINT NOT NULL DEFAULT 0;
