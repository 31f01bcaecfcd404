-- Outgoing email waiting for SMTP (internal/notify Queue). Requests only
-- insert here; delivery loops on every replica claim due rows by setting
-- locked_until, send, and delete them. The message (recipient, subject and
-- bodies, which hold live codes and links) is sealed with the server's
-- encryption key.
CREATE TABLE mail_queue (
    mail_id TEXT PRIMARY KEY,
    sealed TEXT NOT NULL,
    attempts INTEGER NOT NULL DEFAULT 0,
    next_attempt_at BIGINT NOT NULL,
    locked_until BIGINT NOT NULL DEFAULT 0,
    created_at BIGINT NOT NULL,
    last_error TEXT NOT NULL DEFAULT ''
);
CREATE INDEX mail_queue_due ON mail_queue(next_attempt_at);
