import { idpEn } from '../idp/strings';
import { describe, expect, it } from 'vitest';
import { en } from './en';
import { createTranslator, mergeStrings } from './t';

describe('strings', () => {
  it('fills placeholders and leaves unknown ones visible', () => {
    const t = createTranslator(mergeStrings());
    expect(t('main.title.organization', { organizationName: 'Acme' })).toBe('Continue to Acme');
    expect(t('main.title.organization')).toBe('Continue to {organizationName}');
    expect(t('otp.expiresIn', { time: '9:59', extra: 1 })).toBe('Your code expires in 9:59.');
  });

  it('merges overrides over English and ignores unknown keys and non-strings', () => {
    const table = mergeStrings({
      'email.continue': 'Weiter mit E-Mail',
      ...({ 'no.such.key': 'x', 'email.invalid': 42 } as unknown as Record<string, string>),
    });
    expect(table['email.continue']).toBe('Weiter mit E-Mail');
    expect(table['email.invalid']).toBe(en['email.invalid']);
    expect('no.such.key' in table).toBe(false);
  });

  it('keeps the spec texts verbatim', () => {
    expect(en['error.title']).toBe('Looks like there was an error!');
    expect(en['error.screen.Default']).toBe('Something went wrong. Try again later or contact your admin for help.');
    expect(idpEn['idp.noSession']).toBe('No active session detected. Please log in to continue.');
    expect(idpEn['idp.logout.title']).toBe('Log out?');
    expect(idpEn['idp.logout.notLoggedOut']).toBe('You have not been logged out. You may close this page.');
    expect(idpEn['idp.consent.denied']).toBe('Access to the application was denied.');
    expect(en['otp.resent']).toBe('Code sent');
    expect(en['loggingIn.title']).toBe('Logging in...');
    expect(en['email.jitNotAllowed']).toBe(
      '{email} does not have access to {organizationName}. If you think this is a mistake, contact your admin.',
    );
  });
});
