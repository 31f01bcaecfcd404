-- linked marks a registration whose member existed before the connection
-- provisioned them (POST /Users found the address and linked it) rather
-- than being created by it. SCIM may not change a linked member's email
-- address: the bearer token would otherwise let its holder move any
-- pre-existing member (an admin) to an address it controls and log in as
-- them.
ALTER TABLE scim_registrations ADD COLUMN linked BOOLEAN NOT NULL DEFAULT FALSE;

-- Registrations made before this column existed: created only where the
-- audit log shows this registration's user_created event (recorded in the
-- transaction that inserted it, so at or after its created_at); every
-- other one, linked or unknown, is treated as linked.
UPDATE scim_registrations SET linked = TRUE WHERE NOT EXISTS (
    SELECT 1 FROM audit_events a WHERE a.event_type = 'scim_provisioning' AND a.method = 'user_created'
        AND a.member_id = scim_registrations.member_id AND a.created_at >= scim_registrations.created_at);
