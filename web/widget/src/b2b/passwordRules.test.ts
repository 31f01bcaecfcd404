import { describe, expect, it } from 'vitest';
import type { Organization } from '../api/types';
import { ACME } from '../test/fakeServer';
import { AuthFlowType } from './config';
import { emailEligibleForJit, meterSegments, resetEntry, stripResetParams } from './passwordRules';

describe('meterSegments (spec section 5)', () => {
  it.each([
    [0, 1, 'weak'],
    [1, 1, 'weak'],
    [2, 2, 'weak'],
    [3, 3, 'strong'],
    [4, 4, 'strong'],
  ] as const)('score %i fills %i %s segment(s)', (score, filled, tone) => {
    expect(meterSegments(score)).toEqual({ filled, tone });
  });
});

describe('emailEligibleForJit (spec section 5)', () => {
  const org = (o: Partial<Organization>) => ({ ...ACME, ...o }) as unknown as Organization;
  it('NOT_ALLOWED admits nobody; an open organization admits everyone', () => {
    expect(emailEligibleForJit(org({ email_jit_provisioning: 'NOT_ALLOWED' }), 'a@acme.test')).toBe(false);
    expect(emailEligibleForJit(org({ email_jit_provisioning: 'ALL_ALLOWED' }), 'a@anywhere.test')).toBe(true);
  });
  it('RESTRICTED admits only its domains, ignoring case', () => {
    const restricted = org({ email_jit_provisioning: 'RESTRICTED', email_allowed_domains: ['Acme.test'] });
    expect(emailEligibleForJit(restricted, 'a@ACME.test')).toBe(true);
    expect(emailEligibleForJit(restricted, 'a@sub.acme.test')).toBe(false);
    expect(emailEligibleForJit(restricted, 'a@evil.test')).toBe(false);
  });
});

describe('resetEntry', () => {
  const org = AuthFlowType.Organization;
  it('is null without a reset redirect on an ordinary page', () => {
    expect(resetEntry('?stytch_token_type=multi_tenant_passwords&token=t', org)).toBeNull();
    expect(resetEntry('', AuthFlowType.Discovery)).toBeNull();
  });
  it.each(['multi_tenant_passwords', 'discovery', 'multi_tenant_magic_links'] as const)('reads %s tokens', (type) => {
    expect(resetEntry(`?stytch_redirect_type=reset_password&stytch_token_type=${type}&token=abc`, org)).toEqual({ tokenType: type, token: 'abc' });
  });
  it('without a token, or with another type, the session sets the password', () => {
    expect(resetEntry('?stytch_redirect_type=reset_password', org)).toEqual({ tokenType: 'session', token: null });
    expect(resetEntry('?stytch_redirect_type=reset_password&stytch_token_type=oauth&token=x', org)).toEqual({ tokenType: 'session', token: null });
    expect(resetEntry('?stytch_token_type=multi_tenant_passwords', AuthFlowType.PasswordReset)).toEqual({ tokenType: 'session', token: null });
  });
  it('a page mounted with the PasswordReset flow reads the magic link it was sent', () => {
    expect(resetEntry('?stytch_token_type=multi_tenant_magic_links&token=m', AuthFlowType.PasswordReset)).toEqual({
      tokenType: 'multi_tenant_magic_links',
      token: 'm',
    });
  });
  it('stripResetParams keeps everything else', () => {
    expect(stripResetParams('https://app.test/reset?a=1&stytch_token_type=discovery&token=t&stytch_redirect_type=reset_password#x')).toBe(
      'https://app.test/reset?a=1#x',
    );
  });
});
