-- A member with an SSO registration may have had their address verified by
-- their organization's identity provider alone, which proves nothing to
-- other organizations (members.email_address_proven, store migration
-- 0106): such members no longer count as proven until their next login by
-- another method.
UPDATE members SET email_address_proven = FALSE
WHERE email_address_proven = TRUE AND member_id IN (SELECT member_id FROM sso_registrations);
