-- Start-up looked at every registration's tokens and every client secret
-- (Module.MigrateSecrets) to find the few sealed the way earlier releases
-- did, and opened each: a second per 100,000 registrations at every start.
-- A sealed value does not say what it was sealed for, so *_checked records,
-- for the value it was written with, that it is sealed for its row: the
-- value's random nonce (the 16 characters after the "lk1:" prefix, not a
-- secret, and not a sealed value itself), which this release writes with
-- every value it writes. A value written without it (by a replica of an earlier
-- release during a rolling deploy, by a key rotation, or before this
-- migration) no longer matches, so the partial index below holds exactly
-- the values to look at, and the start reads only those; MigrateSecrets
-- repeats these predicates text for text, as an engine uses a partial
-- index only for a query that repeats its condition. The values already
-- stored are looked at once.
ALTER TABLE member_oauth_registrations ADD COLUMN tokens_checked TEXT NOT NULL DEFAULT '';
CREATE INDEX member_oauth_registrations_unchecked ON member_oauth_registrations(registration_id)
    WHERE tokens <> '' AND tokens_checked <> substr(tokens, 5, 16);
ALTER TABLE oauth_provider_configs ADD COLUMN client_secret_checked TEXT NOT NULL DEFAULT '';
CREATE INDEX oauth_provider_configs_unchecked ON oauth_provider_configs(config_id)
    WHERE client_secret <> '' AND client_secret_checked <> substr(client_secret, 5, 16);
-- The plaintext SealExisting seals (atrest.Column.PlaintextCond), as in
-- store migration 0113.
CREATE INDEX member_oauth_registrations_unsealed ON member_oauth_registrations(registration_id)
    WHERE tokens <> '' AND substr(tokens, 1, 4) <> 'lk1:';
CREATE INDEX oauth_provider_configs_unsealed ON oauth_provider_configs(config_id)
    WHERE client_secret <> '' AND substr(client_secret, 1, 4) <> 'lk1:';
