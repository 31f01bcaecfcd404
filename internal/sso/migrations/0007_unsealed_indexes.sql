-- Start-up seals any secret still in plaintext (atrest.SealExisting); its
-- query repeats these predicates (atrest.Column.PlaintextCond, text for
-- text), so once everything is sealed each start reads these empty indexes
-- instead of scanning every registration's tokens.
CREATE INDEX sso_secrets_unsealed ON sso_secrets(secret_id)
    WHERE secret <> '' AND substr(secret, 1, 4) <> 'lk1:';
CREATE INDEX sso_registrations_unsealed ON sso_registrations(registration_id)
    WHERE tokens <> '' AND substr(tokens, 1, 4) <> 'lk1:';
