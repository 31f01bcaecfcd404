import { afterEach, describe, expect, it, vi } from 'vitest';
import { allPermissions, isAuthorized, parsePolicy, scopesLacking, type RBACPolicy } from './rbac';
import { SESSION_COOKIE, removeCookie, setCookie } from './session/cookies';
import { ACME, loggedInResponse } from './test/fakeServer';
import { acmeServer, newClient, TOKEN } from './test/harness';

const POLICY: RBACPolicy = {
  resources: [
    { resource_id: 'documents', actions: ['read', 'write', 'delete'] },
    { resource_id: 'stytch.member', actions: ['delete', 'search'] },
  ],
  roles: [
    { role_id: 'stytch_member', permissions: [{ resource_id: 'documents', actions: ['read'] }] },
    { role_id: 'stytch_admin', permissions: [{ resource_id: 'stytch.member', actions: ['*'] }] },
    { role_id: 'editor', permissions: [{ resource_id: 'documents', actions: ['read', 'write'] }] },
  ],
  scopes: [
    { scope: 'read:documents', permissions: [{ resource_id: 'documents', actions: ['read'] }] },
    { scope: 'write:documents', permissions: [{ resource_id: 'documents', actions: ['write'] }] },
  ],
};
const REVIEWER = [{ role_id: 'reviewer', permissions: [{ resource_id: 'documents', actions: ['delete'] }] }];

describe('the matching rule (spec section 6)', () => {
  it('grants an action listed by a held role, or by its wildcard, and nothing else', () => {
    expect(isAuthorized(POLICY, [], ['stytch_member'], 'documents', 'read')).toBe(true);
    expect(isAuthorized(POLICY, [], ['stytch_member'], 'documents', 'write')).toBe(false);
    expect(isAuthorized(POLICY, [], ['stytch_member', 'editor'], 'documents', 'write')).toBe(true);
    expect(isAuthorized(POLICY, [], ['stytch_admin'], 'stytch.member', 'delete')).toBe(true);
    expect(isAuthorized(POLICY, [], ['stytch_admin'], 'documents', 'read')).toBe(false);
    expect(isAuthorized(POLICY, [], ['ghost'], 'documents', 'read')).toBe(false);
    expect(isAuthorized(POLICY, [], [], 'documents', 'read')).toBe(false);
  });

  it('adds the organization custom roles to the project roles', () => {
    expect(isAuthorized(POLICY, REVIEWER, ['reviewer'], 'documents', 'delete')).toBe(true);
    expect(isAuthorized(POLICY, undefined, ['reviewer'], 'documents', 'delete')).toBe(false);
  });

  it('assumes no permissions without a policy', () => {
    expect(parsePolicy(null)).toBeNull();
    expect(parsePolicy({ roles: 'x' })).toBeNull();
    expect(isAuthorized(null, [], ['stytch_admin'], 'stytch.member', 'delete')).toBe(false);
    expect(allPermissions(null, [], ['stytch_admin'])).toEqual({});
  });

  it('lists every action of every resource', () => {
    expect(allPermissions(POLICY, [], ['editor'])).toEqual({
      documents: { read: true, write: true, delete: false },
      'stytch.member': { delete: false, search: false },
    });
  });

  it('names the custom scopes the member lacks (consent screen)', () => {
    expect(scopesLacking(POLICY, [], ['stytch_member'], ['openid', 'read:documents', 'write:documents'])).toEqual(['write:documents']);
    expect(scopesLacking(POLICY, [], ['editor'], ['read:documents', 'write:documents'])).toEqual([]);
  });
});

describe('client.rbac', () => {
  afterEach(() => {
    removeCookie(SESSION_COOKIE);
    localStorage.clear();
  });

  function loggedIn(roles: string[], organization: Record<string, unknown> = ACME) {
    const r = loggedInResponse();
    setCookie(SESSION_COOKIE, 'session-token-1', new Date(Date.now() + 3600_000));
    localStorage.setItem(`stytch_sdk_state_${TOKEN}`,
      JSON.stringify({ member: r.member, organization, session: { ...r.member_session, roles } }));
  }

  it('answers from the bootstrap policy, the session roles and the custom roles', async () => {
    loggedIn(['stytch_member', 'reviewer'], { ...ACME, custom_roles: REVIEWER });
    const { client } = newClient(acmeServer({ rbac_policy: POLICY }));
    expect(await client.rbac.isAuthorized('documents', 'read')).toBe(true);
    expect(await client.rbac.isAuthorized('documents', 'delete')).toBe(true);
    expect(await client.rbac.isAuthorized('documents', 'write')).toBe(false);
    expect(client.rbac.isAuthorizedSync('documents', 'read')).toBe(true);
    expect((await client.rbac.allPermissions()).documents).toEqual({ read: true, write: false, delete: true });
  });

  it('grants nothing when logged out or when the server sent no policy', async () => {
    const { client } = newClient(acmeServer({ rbac_policy: POLICY }));
    expect(await client.rbac.isAuthorized('documents', 'read')).toBe(false);
    loggedIn(['stytch_admin']);
    const error = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const { client: noPolicy } = newClient(acmeServer({ rbac_policy: null }));
    expect(await noPolicy.rbac.isAuthorized('stytch.member', 'delete')).toBe(false);
    expect(error).toHaveBeenCalled();
    error.mockRestore();
  });
});
