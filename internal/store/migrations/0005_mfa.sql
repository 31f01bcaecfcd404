-- Multi-factor authentication: the member's enrollment, SMS codes, TOTP
-- registrations and recovery codes.

-- mfa_phone_number is E.164 and set only once verified by an SMS code;
-- totp_registration_id names the member's verified TOTP registration.
ALTER TABLE members ADD COLUMN mfa_phone_number TEXT NOT NULL DEFAULT '';
ALTER TABLE members ADD COLUMN mfa_phone_number_verified BOOLEAN NOT NULL DEFAULT FALSE;
ALTER TABLE members ADD COLUMN mfa_enrolled BOOLEAN NOT NULL DEFAULT FALSE;
ALTER TABLE members ADD COLUMN default_mfa_method TEXT NOT NULL DEFAULT '';
ALTER TABLE members ADD COLUMN totp_registration_id TEXT NOT NULL DEFAULT '';

-- duplicate_member_phone_number: one member per number in an organization.
CREATE UNIQUE INDEX members_org_mfa_phone ON members(organization_id, mfa_phone_number) WHERE mfa_phone_number <> '';

-- SMS codes: salted hashes, single use via used_at, locked after repeated
-- wrong guesses. phone_number is where the code went: authenticating it
-- proves (and, when enrolling, verifies) that number.
CREATE TABLE sms_otps (
    sms_otp_id TEXT PRIMARY KEY,
    project_id TEXT NOT NULL,
    organization_id TEXT NOT NULL REFERENCES organizations(organization_id) ON DELETE CASCADE,
    member_id TEXT NOT NULL REFERENCES members(member_id) ON DELETE CASCADE,
    phone_number TEXT NOT NULL,
    code_salt TEXT NOT NULL,
    code_hash TEXT NOT NULL,
    failed_attempts INTEGER NOT NULL DEFAULT 0,
    created_at BIGINT NOT NULL,
    expires_at BIGINT NOT NULL,
    used_at BIGINT
);
CREATE INDEX sms_otps_member ON sms_otps(member_id, created_at);

-- TOTP registrations. The secret must be readable to check codes. A
-- registration is pending (verified_at NULL, usable until expires_at) until
-- its first code is accepted. last_used_step is the RFC 6238 time step of
-- the last accepted code: a code is accepted only for a later step, so a
-- code cannot be replayed within its window.
CREATE TABLE totp_registrations (
    totp_registration_id TEXT PRIMARY KEY,
    project_id TEXT NOT NULL,
    organization_id TEXT NOT NULL REFERENCES organizations(organization_id) ON DELETE CASCADE,
    member_id TEXT NOT NULL REFERENCES members(member_id) ON DELETE CASCADE,
    secret TEXT NOT NULL,
    last_used_step BIGINT NOT NULL DEFAULT 0,
    created_at BIGINT NOT NULL,
    expires_at BIGINT NOT NULL,
    verified_at BIGINT
);
CREATE INDEX totp_registrations_member ON totp_registrations(member_id, created_at);

-- Recovery codes belong to a TOTP registration and work once it is
-- verified. code_hash (salted) is what recover checks; reveal is a copy
-- kept only until the first code of the set is used, so that get can show
-- the set again until then (see package recovery).
CREATE TABLE recovery_codes (
    recovery_code_id TEXT PRIMARY KEY,
    member_id TEXT NOT NULL REFERENCES members(member_id) ON DELETE CASCADE,
    totp_registration_id TEXT NOT NULL REFERENCES totp_registrations(totp_registration_id) ON DELETE CASCADE,
    position INTEGER NOT NULL,
    code_salt TEXT NOT NULL,
    code_hash TEXT NOT NULL,
    reveal TEXT,
    created_at BIGINT NOT NULL,
    used_at BIGINT
);
CREATE INDEX recovery_codes_registration ON recovery_codes(totp_registration_id);
