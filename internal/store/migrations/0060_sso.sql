-- SSO (issue 8). The sso module owns its tables (sso/NNNN); these columns
-- are the core objects' SSO fields, written by that module in the same
-- transaction as the connection or registration they summarise, so every
-- organization and member read (lists, discovery, sessions) shows them with
-- no join into module tables.
--
-- sso_active_connections: the organization's active connections as the
-- wire's SSOActiveConnection objects (JSON array).
ALTER TABLE organizations ADD COLUMN sso_active_connections TEXT NOT NULL DEFAULT '[]';
-- sso_registrations: the member's SSORegistration objects (JSON array).
ALTER TABLE members ADD COLUMN sso_registrations TEXT NOT NULL DEFAULT '[]';
-- pkce_required_for_sso: SSO starts must carry a PKCE code challenge
-- (bootstrap pkce_required_for_sso).
ALTER TABLE projects ADD COLUMN pkce_required_for_sso BOOLEAN NOT NULL DEFAULT FALSE;
