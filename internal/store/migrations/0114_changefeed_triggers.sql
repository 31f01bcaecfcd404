-- The level of the binary that installed each change-feed trigger (and,
-- on PostgreSQL, the trigger function): how many migrations it knew
-- (changefeed.Install). A replica of an older release, restarting during a
-- rolling deploy after a newer one migrated, leaves the newer triggers in
-- place instead of putting back its own narrower ones.
CREATE TABLE changefeed_triggers (
    name TEXT PRIMARY KEY,
    level BIGINT NOT NULL
);
