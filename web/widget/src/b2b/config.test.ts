import { describe, expect, it } from 'vitest';
import { normalizeConfig } from './config';

describe('normalizeConfig', () => {
  it('merges shared and per-provider OAuth start options, provider entries winning', () => {
    const c = normalizeConfig({
      products: ['oauth'],
      oauthOptions: {
        providers: ['github', { type: 'google', customScopes: ['x'], providerParams: { prompt: 'consent' } }, { type: 'nope' as 'google' }],
        customScopes: ['shared'],
        providerParams: { prompt: 'select_account', hd: 'acme.test' },
        loginRedirectURL: 'https://app.test/login',
        discoveryRedirectURL: '',
      },
    });
    expect(c.oauthProviders).toEqual(['github', 'google']);
    expect(c.oauthStart).toEqual({
      github: { customScopes: ['shared'], providerParams: { prompt: 'select_account', hd: 'acme.test' } },
      google: { customScopes: ['x'], providerParams: { prompt: 'consent', hd: 'acme.test' } },
    });
    expect(c.oauthRedirects).toEqual({ loginRedirectURL: 'https://app.test/login', signupRedirectURL: undefined, discoveryRedirectURL: undefined });
  });

  it('defaults the discovery options to off', () => {
    const c = normalizeConfig({ products: ['emailOtp'], authFlowType: 'Discovery' });
    expect(c.directLoginForSingleMembership).toEqual({ status: false, ignoreInvites: false, ignoreJitProvisioning: false });
    expect(c.directCreateOrganizationForNoMembership).toBe(false);
    expect(c.disableCreateOrganization).toBe(false);
    const on = normalizeConfig({
      products: ['emailOtp'],
      directLoginForSingleMembership: { status: true, ignoreInvites: true },
      directCreateOrganizationForNoMembership: true,
      disableCreateOrganization: true,
    });
    expect(on.directLoginForSingleMembership).toEqual({ status: true, ignoreInvites: true, ignoreJitProvisioning: false });
    expect(on.directCreateOrganizationForNoMembership).toBe(true);
    expect(on.disableCreateOrganization).toBe(true);
  });

  it('every product has its flow: none is announced as missing', () => {
    expect(normalizeConfig({ products: ['emailOtp', 'oauth', 'sso', 'passwords'] }).unsupportedProducts).toEqual([]);
  });

  it('keeps well-formed password options and drops the rest', () => {
    const c = normalizeConfig({
      products: ['passwords'],
      passwordOptions: {
        resetPasswordRedirectURL: 'https://app.test/reset',
        resetPasswordExpirationMinutes: 20,
        verifyEmailTemplateId: '',
        locale: 'en',
      },
    });
    expect(c.passwordOptions).toEqual({ resetPasswordRedirectURL: 'https://app.test/reset', resetPasswordExpirationMinutes: 20, locale: 'en' });
    const bad = normalizeConfig({ products: ['passwords'], passwordOptions: { resetPasswordExpirationMinutes: -5 } });
    expect(bad.passwordOptions).toEqual({});
  });

  it('maps MFA product names to policy names, dropping unknown and repeated ones', () => {
    const none = normalizeConfig({ products: ['emailOtp'] });
    expect(none.mfaProductOrder).toEqual([]);
    expect(none.mfaProductInclude).toBeNull();
    const set = normalizeConfig({
      products: ['emailOtp'],
      mfaProductOrder: ['totp', 'smsOtp', 'totp'],
      mfaProductInclude: ['smsOtp', 'passkeys' as never],
    });
    expect(set.mfaProductOrder).toEqual(['totp', 'sms_otp']);
    expect(set.mfaProductInclude).toEqual(['sms_otp']);
  });
});
