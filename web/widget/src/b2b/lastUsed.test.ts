import { describe, expect, it } from 'vitest';
import { LastUsedMethodStore, parseLastUsedMethod, ssoLastUsed } from './lastUsed';

describe('last used method', () => {
  it('accepts providers, SSO connections and the email and password products', () => {
    for (const v of ['google', 'microsoft', 'hubspot', 'slack', 'github', 'emailMagicLinks', 'emailOtp', 'passwords', 'sso:c1']) {
      expect(parseLastUsedMethod(v)).toBe(v);
    }
    expect(ssoLastUsed('saml-connection-test-1')).toBe('sso:saml-connection-test-1');
  });

  it('rejects anything else', () => {
    for (const v of [null, '', 'sso:', 'apple', 'oauth', 'GOOGLE']) expect(parseLastUsedMethod(v)).toBeNull();
  });

  it('is stored per project under the reference key', () => {
    const store = new LastUsedMethodStore('stytch_sdk_state_public-token-test-x');
    expect(store.get()).toBeNull();
    store.set('sso:c1');
    expect(localStorage.getItem('stytch_sdk_state_public-token-test-x::b2b_last_used_method')).toBe('sso:c1');
    expect(store.get()).toBe('sso:c1');
    localStorage.setItem('stytch_sdk_state_public-token-test-x::b2b_last_used_method', 'bogus');
    expect(store.get()).toBeNull();
  });
});
