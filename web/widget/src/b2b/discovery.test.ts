import { describe, expect, it } from 'vitest';
import type { DiscoveredOrganization } from '../api/types';
import { ACME, discovered, GLOBEX } from '../test/fakeServer';
import { canCreateOrganization, directLoginTarget, membershipLabel, selectionFor } from './discovery';

const d = (...args: Parameters<typeof discovered>) => discovered(...args) as unknown as DiscoveredOrganization;
const INITECH = { ...ACME, organization_id: 'organization-test-initech', organization_name: 'Initech' };
const on = { status: true, ignoreInvites: false, ignoreJitProvisioning: false };

describe('membershipLabel', () => {
  it('maps membership types to Join / Accept Invite, and active members to none', () => {
    expect(membershipLabel('active_member')).toBeNull();
    expect(membershipLabel('invited_member')).toBe('acceptInvite');
    expect(membershipLabel('pending_member')).toBe('join');
    expect(membershipLabel('eligible_to_join_by_email_domain')).toBe('join');
    expect(membershipLabel('eligible_to_join_by_oauth_tenant')).toBe('join');
    expect(membershipLabel('something_new')).toBeNull();
  });
});

describe('directLoginTarget', () => {
  const acme = d(ACME, 'active_member');
  it('is the single active membership when enabled', () => {
    expect(directLoginTarget([acme], on)).toBe(acme);
    expect(directLoginTarget([acme], { ...on, status: false })).toBeNull();
  });

  it('needs exactly one active membership', () => {
    expect(directLoginTarget([acme, d(GLOBEX, 'active_member')], on)).toBeNull();
    expect(directLoginTarget([d(GLOBEX, 'invited_member')], { ...on, ignoreInvites: true })).toBeNull();
    expect(directLoginTarget([], on)).toBeNull();
  });

  it('invitations and pending memberships block it unless ignoreInvites', () => {
    for (const type of ['invited_member', 'pending_member']) {
      const orgs = [acme, d(GLOBEX, type)];
      expect(directLoginTarget(orgs, on)).toBeNull();
      expect(directLoginTarget(orgs, { ...on, ignoreInvites: true })).toBe(acme);
      // Ignoring JIT does not ignore invitations.
      expect(directLoginTarget(orgs, { ...on, ignoreJitProvisioning: true })).toBeNull();
    }
  });

  it('organizations joinable by domain or tenant block it unless ignoreJitProvisioning', () => {
    for (const type of ['eligible_to_join_by_email_domain', 'eligible_to_join_by_oauth_tenant']) {
      const orgs = [d(INITECH, type), acme];
      expect(directLoginTarget(orgs, on)).toBeNull();
      expect(directLoginTarget(orgs, { ...on, ignoreJitProvisioning: true })).toBe(acme);
      expect(directLoginTarget(orgs, { ...on, ignoreInvites: true })).toBeNull();
    }
    const all = [acme, d(GLOBEX, 'invited_member'), d(INITECH, 'eligible_to_join_by_email_domain')];
    expect(directLoginTarget(all, { status: true, ignoreInvites: true, ignoreJitProvisioning: true })).toBe(acme);
  });
});

describe('canCreateOrganization', () => {
  it('needs the project flag and no opt-out', () => {
    expect(canCreateOrganization({ createOrganizationEnabled: true }, { disableCreateOrganization: false })).toBe(true);
    expect(canCreateOrganization({ createOrganizationEnabled: true }, { disableCreateOrganization: true })).toBe(false);
    expect(canCreateOrganization({ createOrganizationEnabled: false }, { disableCreateOrganization: false })).toBe(false);
  });
});

describe('selectionFor', () => {
  const required = (allowed: string[], org: Record<string, unknown> = ACME) =>
    d(org, 'active_member', { primary_required: { allowed_auth_methods: allowed } });

  it('exchanges the intermediate session when no primary method is required', () => {
    expect(selectionFor(d(ACME))).toEqual({ kind: 'exchange' });
  });

  it('starts SSO when only SSO is allowed and a default connection exists', () => {
    const org = { ...ACME, sso_default_connection_id: 'saml-connection-test-1' };
    expect(selectionFor(required(['sso'], org))).toEqual({ kind: 'sso', connectionId: 'saml-connection-test-1' });
    // Without a default connection the member chooses on Main.
    expect(selectionFor(required(['sso']))).toEqual({ kind: 'restrictedMain', allowedAuthMethods: ['sso'] });
    expect(selectionFor(required(['sso', 'email_otp'], org))).toEqual({ kind: 'restrictedMain', allowedAuthMethods: ['sso', 'email_otp'] });
  });

  it('shows Main restricted to the allowed methods, or the auth-policy error with none', () => {
    expect(selectionFor(required(['magic_link', 'google_oauth']))).toEqual({
      kind: 'restrictedMain',
      allowedAuthMethods: ['magic_link', 'google_oauth'],
    });
    expect(selectionFor(required([]))).toEqual({ kind: 'authPolicyError' });
  });
});
