-- Member email changes (start_email_update) and retired email addresses.

-- The address a magic link verifies when it is not the member's current
-- one: the new address of an email update (purpose 'email_update'). Empty
-- for every other link.
ALTER TABLE magic_links ADD COLUMN email_address TEXT NOT NULL DEFAULT '';

-- Email-update codes, sent to the new address. update_key is
-- member_id|email_address, so a code only ever proves the address it was
-- sent to; a member has at most one live update (starting another retires
-- the previous codes and links). Same hashing, expiry, single use and
-- lockout as email_otps.
CREATE TABLE email_update_otps (
    email_update_otp_id TEXT PRIMARY KEY,
    project_id TEXT NOT NULL,
    update_key TEXT NOT NULL,
    organization_id TEXT NOT NULL REFERENCES organizations(organization_id) ON DELETE CASCADE,
    member_id TEXT NOT NULL REFERENCES members(member_id) ON DELETE CASCADE,
    email_address TEXT NOT NULL,
    code_salt TEXT NOT NULL,
    code_hash TEXT NOT NULL,
    failed_attempts INTEGER NOT NULL DEFAULT 0,
    created_at BIGINT NOT NULL,
    expires_at BIGINT NOT NULL,
    used_at BIGINT
);
CREATE INDEX email_update_otps_key ON email_update_otps(update_key, created_at);
CREATE INDEX email_update_otps_address ON email_update_otps(organization_id, email_address);
CREATE INDEX email_update_otps_member ON email_update_otps(member_id);

-- A member's former addresses (retired_email_addresses). email_id is the
-- id the address had while it was the member's. A retired address stays
-- reserved for its member within the organization (no other member may
-- take it) until it is unlinked.
CREATE TABLE member_retired_emails (
    email_id TEXT PRIMARY KEY,
    project_id TEXT NOT NULL,
    organization_id TEXT NOT NULL REFERENCES organizations(organization_id) ON DELETE CASCADE,
    member_id TEXT NOT NULL REFERENCES members(member_id) ON DELETE CASCADE,
    email_address TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    UNIQUE (organization_id, email_address)
);
CREATE INDEX member_retired_emails_member ON member_retired_emails(member_id);
