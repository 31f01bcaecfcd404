-- email_address_proven: the member's address was proven by a proof every
-- organization can rely on (an email link or code, a provider-verified
-- OAuth login, a password, the customer's backend), not only asserted by
-- the organization's own SSO identity provider, which its admin runs and
-- which may assert any address. email_address_verified (the wire field)
-- counts both. Discovery offers an organization to an address's domain by
-- email or SSO JIT only when an active member at that domain has a proven
-- address (the API family's anti-phishing rule), so an organization cannot
-- vouch for itself through its own identity provider.
--
-- Existing verified members are taken as proven, except those with an SSO
-- registration, whose proof may have been their identity provider's alone
-- (the sso module's migration 0006 clears theirs); their next login by
-- another method proves the address again.
ALTER TABLE members ADD COLUMN email_address_proven BOOLEAN NOT NULL DEFAULT FALSE;
UPDATE members SET email_address_proven = email_address_verified;
