-- The change feed (internal/changefeed): triggers on watched tables append
-- one row per changed row, and every process polls this table to drop what
-- it cached. bigserial ids are handed out at insert time but become visible
-- at commit, so readers re-read gaps for a while (see changefeed.Feed).
CREATE TABLE changes (
    id BIGSERIAL PRIMARY KEY,
    tbl TEXT NOT NULL,
    scope TEXT NOT NULL,
    row_key TEXT NOT NULL,
    at BIGINT NOT NULL
);
CREATE INDEX changes_at ON changes(at);
