-- Live login, signup and invite links and email codes written before 0094
-- name no address. A member row that has not been written since the
-- secret was (members.updated_at moves with every address change, and with
-- every other member write) still has the address the secret was sent to,
-- so that address is filled in and the secret keeps working. Where the
-- member changed since, the address it was sent to is unknown: the secret
-- keeps '' and is refused like a used one (a login link or code is asked
-- for again; an invitation is sent again). The fill is its own migration
-- so that a test can replay it on rows of the old shape.
UPDATE magic_links SET email_address = (SELECT m.email_address FROM members m WHERE m.member_id = magic_links.member_id)
WHERE email_address = '' AND purpose <> 'email_update' AND used_at IS NULL
AND EXISTS (SELECT 1 FROM members m WHERE m.member_id = magic_links.member_id AND m.updated_at <= magic_links.created_at);
UPDATE email_otps SET email_address = (SELECT m.email_address FROM members m WHERE m.member_id = email_otps.member_id)
WHERE email_address = '' AND used_at IS NULL
AND EXISTS (SELECT 1 FROM members m WHERE m.member_id = email_otps.member_id AND m.updated_at <= email_otps.created_at);
