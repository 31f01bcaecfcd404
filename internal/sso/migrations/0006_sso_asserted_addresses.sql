-- Nothing to change. A first version of this migration took the proof
-- (members.email_address_proven, store migration 0106) from every member
-- with an SSO registration, since their address may have been verified by
-- their organization's identity provider alone. The rows carry no record
-- of which proof it was, so that cleared members who had proven their
-- address by email too, and every organization whose people log in by SSO
-- vanished from SSO discovery at the upgrade. Addresses verified before
-- 0106 count as proven; from 0106 on an SSO login only asserts
-- (organization.MarkEmailAsserted).
SELECT 1;
