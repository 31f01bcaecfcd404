-- Start-up seals any secret still in plaintext (atrest.SealExisting); its
-- query repeats these predicates (atrest.Column.PlaintextCond, text for
-- text: an engine uses a partial index only for a query that repeats its
-- condition), so once everything is sealed each start reads these empty
-- indexes instead of scanning every member's TOTP secrets and recovery
-- codes. A plaintext value, even one a replica of an older release writes
-- during a rolling deploy, enters the index and is sealed at the next
-- start.
CREATE INDEX signing_keys_unsealed ON signing_keys(kid)
    WHERE private_key_pem <> '' AND substr(private_key_pem, 1, 4) <> 'lk1:';
CREATE INDEX totp_registrations_unsealed ON totp_registrations(totp_registration_id)
    WHERE secret <> '' AND substr(secret, 1, 4) <> 'lk1:';
CREATE INDEX recovery_codes_unsealed ON recovery_codes(recovery_code_id)
    WHERE reveal <> '' AND substr(reveal, 1, 4) <> 'lk1:';
