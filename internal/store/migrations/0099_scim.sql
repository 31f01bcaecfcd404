-- SCIM provisioning. The scim module owns its tables (scim/NNNN); this
-- column is the organization's SCIM field, written by that module in the
-- same transaction as the connection it summarises, so every organization
-- read (and every cached one, through the organizations watch) shows it
-- with no join into module tables.
--
-- scim_active_connection: the wire's {connection_id, display_name} as JSON,
-- '' when the organization has no SCIM connection.
ALTER TABLE organizations ADD COLUMN scim_active_connection TEXT NOT NULL DEFAULT '';
