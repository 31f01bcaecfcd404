-- One row sealed with the encryption key the database's secrets are sealed
-- with (internal/atrest CheckKey): every start-up opens it before sealing
-- anything, so a server or CLI run with a mistyped LATCHKEY_ENCRYPTION_KEY
-- refuses to start instead of sealing new secrets under a second key. The
-- first start with a key writes it (insert-if-absent, then read back, so
-- replicas starting together agree on one key).
CREATE TABLE encryption_key_check (
    id TEXT PRIMARY KEY,
    sealed TEXT NOT NULL
);
