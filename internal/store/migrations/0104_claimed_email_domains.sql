-- claimed_email_domains: the domains an organization claims, a setting
-- only the customer's backend writes (organizations create and update on
-- the backend face). A claim keeps the domain's people from creating or
-- joining other organizations by discovery
-- (action_not_allowed_email_domain_is_claimed).
--
-- The column is the organization's list as the wire shows it, read with
-- the organization like its other lists. organization_claimed_domains is
-- the project-wide index of the same claims, written in the same
-- transaction: its key makes a domain claimable by one organization of a
-- project only, even under concurrent updates, and claim checks look a
-- domain up there.
--
-- Nothing is backfilled: before this setting, a RESTRICTED organization's
-- email_allowed_domains counted as claimed, which let anyone claim any
-- domain without proof. Those organizations now claim nothing until the
-- backend sets their claims.
ALTER TABLE organizations ADD COLUMN claimed_email_domains TEXT NOT NULL DEFAULT '[]';
CREATE TABLE organization_claimed_domains (
    project_id TEXT NOT NULL,
    domain TEXT NOT NULL,
    organization_id TEXT NOT NULL REFERENCES organizations(organization_id) ON DELETE CASCADE,
    PRIMARY KEY (project_id, domain)
);
CREATE INDEX organization_claimed_domains_org ON organization_claimed_domains(organization_id);
