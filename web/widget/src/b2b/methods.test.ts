import { describe, expect, it } from 'vitest';
import type { Organization } from '../api/types';
import { ACME } from '../test/fakeServer';
import { enabledMethods, expandProducts, mainBlocks, policyName } from './methods';

const org = (overrides: Partial<Organization>) => ({ ...ACME, ...overrides }) as Organization;
const names = (ms: ReturnType<typeof enabledMethods>) => ms.map(policyName);

describe('enabledMethods', () => {
  it('returns configured products with oauth expanded to providers', () => {
    expect(expandProducts(['oauth', 'emailMagicLinks'], ['google', 'github'])).toEqual([
      { product: 'oauth', provider: 'google' },
      { product: 'oauth', provider: 'github' },
      { product: 'emailMagicLinks' },
    ]);
    const all = enabledMethods({ products: ['emailOtp', 'emailMagicLinks'], oauthProviders: [], organization: org({}), primaryAllowed: null });
    expect(names(all)).toEqual(['email_otp', 'magic_link']);
  });

  it('filters by a RESTRICTED organization', () => {
    const o = org({ auth_methods: 'RESTRICTED', allowed_auth_methods: ['email_otp', 'google_oauth'] });
    const ms = enabledMethods({ products: ['emailMagicLinks', 'emailOtp', 'oauth'], oauthProviders: ['google', 'slack'], organization: o, primaryAllowed: null });
    expect(names(ms)).toEqual(['email_otp', 'google_oauth']);
  });

  it('offers all known methods allowed by a restricted organization when nothing configured matches', () => {
    const o = org({ auth_methods: 'RESTRICTED', allowed_auth_methods: ['magic_link', 'sso'] });
    const ms = enabledMethods({ products: ['emailOtp'], oauthProviders: [], organization: o, primaryAllowed: null });
    expect(names(ms)).toEqual(['magic_link', 'sso']);
  });

  it('uses the primary-auth restriction over the organization and falls back to magic link', () => {
    const o = org({ auth_methods: 'RESTRICTED', allowed_auth_methods: ['email_otp'] });
    expect(names(enabledMethods({ products: ['emailMagicLinks', 'emailOtp'], oauthProviders: [], organization: o, primaryAllowed: ['magic_link'] }))).toEqual(['magic_link']);
    expect(names(enabledMethods({ products: ['emailOtp'], oauthProviders: [], organization: o, primaryAllowed: ['sso'] }))).toEqual(['magic_link']);
  });

  it('ignores allowed_auth_methods when the organization allows all', () => {
    const o = org({ auth_methods: 'ALL_ALLOWED', allowed_auth_methods: ['sso'] });
    expect(names(enabledMethods({ products: ['emailMagicLinks'], oauthProviders: [], organization: o, primaryAllowed: null }))).toEqual(['magic_link']);
  });
});

describe('mainBlocks', () => {
  it('merges magic link and email OTP into one email form', () => {
    expect(mainBlocks([{ product: 'emailOtp' }, { product: 'emailMagicLinks' }])).toEqual([{ kind: 'emailForm', magicLink: true, otp: true }]);
    expect(mainBlocks([{ product: 'emailOtp' }])).toEqual([{ kind: 'emailForm', magicLink: false, otp: true }]);
  });

  it('leaves out methods whose blocks are not built yet', () => {
    expect(mainBlocks([{ product: 'sso' }, { product: 'oauth', provider: 'google' }, { product: 'passwords' }])).toEqual([]);
  });
});
