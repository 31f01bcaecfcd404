-- Security audit log: logins and failures, lockouts, factor changes, key
-- and secret rotation. Rows never hold a secret; ip and user_agent are
-- what the request carried. Read with `latchkey audit --project ID`.
CREATE TABLE audit_events (
    event_id TEXT PRIMARY KEY,
    project_id TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    event_type TEXT NOT NULL,
    outcome TEXT NOT NULL,
    method TEXT NOT NULL DEFAULT '',
    organization_id TEXT NOT NULL DEFAULT '',
    member_id TEXT NOT NULL DEFAULT '',
    actor TEXT NOT NULL DEFAULT '',
    ip TEXT NOT NULL DEFAULT '',
    user_agent TEXT NOT NULL DEFAULT '',
    request_id TEXT NOT NULL DEFAULT '',
    details TEXT NOT NULL DEFAULT '{}'
);
CREATE INDEX audit_events_project ON audit_events(project_id, created_at);
CREATE INDEX audit_events_created ON audit_events(created_at);
