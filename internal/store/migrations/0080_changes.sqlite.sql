-- The change feed (internal/changefeed): triggers on watched tables append
-- one row per changed row, and every process polls this table to drop what
-- it cached. AUTOINCREMENT keeps ids increasing even after the newest rows
-- are swept, so a reader's cursor never sees an id twice.
CREATE TABLE changes (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    tbl TEXT NOT NULL,
    scope TEXT NOT NULL,
    row_key TEXT NOT NULL,
    at BIGINT NOT NULL
);
CREATE INDEX changes_at ON changes(at);
