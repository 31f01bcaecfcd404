-- Issue 3: every field of the Organization object (api-reference 3.0) and
-- the member fields organizations, invites and member search need.
-- SQLite adds one column per ALTER TABLE; NOT NULL columns carry defaults so
-- existing rows stay valid.

-- Organizations: SSO, OAuth-tenant, RBAC and connected-app settings. They
-- are stored and validated now and enforced by the features that use them.
ALTER TABLE organizations ADD COLUMN organization_external_id TEXT;
ALTER TABLE organizations ADD COLUMN sso_default_connection_id TEXT;
ALTER TABLE organizations ADD COLUMN sso_jit_provisioning TEXT NOT NULL DEFAULT 'ALL_ALLOWED';
ALTER TABLE organizations ADD COLUMN sso_jit_provisioning_allowed_connections TEXT NOT NULL DEFAULT '[]';
ALTER TABLE organizations ADD COLUMN oauth_tenant_jit_provisioning TEXT NOT NULL DEFAULT 'NOT_ALLOWED';
ALTER TABLE organizations ADD COLUMN allowed_oauth_tenants TEXT NOT NULL DEFAULT '{}';
ALTER TABLE organizations ADD COLUMN rbac_email_implicit_role_assignments TEXT NOT NULL DEFAULT '[]';
ALTER TABLE organizations ADD COLUMN custom_roles TEXT NOT NULL DEFAULT '[]';
ALTER TABLE organizations ADD COLUMN first_party_connected_apps_allowed_type TEXT NOT NULL DEFAULT 'ALL_ALLOWED';
ALTER TABLE organizations ADD COLUMN allowed_first_party_connected_apps TEXT NOT NULL DEFAULT '[]';
ALTER TABLE organizations ADD COLUMN third_party_connected_apps_allowed_type TEXT NOT NULL DEFAULT 'ALL_ALLOWED';
ALTER TABLE organizations ADD COLUMN allowed_third_party_connected_apps TEXT NOT NULL DEFAULT '[]';
-- NULLs never collide in a unique index on either engine, so unset external
-- ids do not conflict.
CREATE UNIQUE INDEX organizations_external_id ON organizations(project_id, organization_external_id);
-- Keyset paging of organization search orders by (created_at, id).
CREATE INDEX organizations_project_created ON organizations(project_id, created_at, organization_id);

-- Members: admins may change their organization (until RBAC replaces the
-- flag). member_password_id is written by the password feature; member
-- search filters on it. (mfa_phone_number comes with MFA, migration 0005.)
ALTER TABLE members ADD COLUMN is_admin BOOLEAN NOT NULL DEFAULT FALSE;
ALTER TABLE members ADD COLUMN member_password_id TEXT NOT NULL DEFAULT '';
CREATE INDEX members_org_created ON members(organization_id, created_at, member_id);
