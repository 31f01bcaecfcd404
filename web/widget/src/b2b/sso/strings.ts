/**
 * The SSO discovery screens' strings. They live with the screens' part (loaded on demand), not in
 * the main table, so pages that never open SSO discovery do not download them; the `strings` mount
 * option overrides them like any other entry. The two fallback errors are quoted verbatim from the
 * spec (section 8); the spec does not give the other texts.
 */
import { createTranslator } from '../../strings/t';

export const ssoDiscoveryEn = {
  'ssoDiscovery.email.title': 'Log in with single sign-on',
  'ssoDiscovery.email.body': 'Enter your work email address to find your organization’s sign-on.',
  'ssoDiscovery.email.submit': 'Continue',
  'ssoDiscovery.fallback.title': 'We couldn’t find a single sign-on connection for {email}',
  'ssoDiscovery.fallback.body':
    'Enter your organization’s slug to continue. If you don’t know it, log in another way to see your organizations.',
  'ssoDiscovery.fallback.slugLabel': 'Organization slug',
  'ssoDiscovery.fallback.slugRequired': 'Enter your organization’s slug.',
  'ssoDiscovery.fallback.submit': 'Continue',
  'ssoDiscovery.fallback.notFound': 'Organization not found. Please try again.',
  'ssoDiscovery.fallback.error': 'An error occurred. Please try again.',
  'ssoDiscovery.fallback.otherMethod': 'Try another login method',
  'ssoDiscovery.menu.title': 'Select a connection to continue',
  'ssoDiscovery.menu.body': 'Connections that {email} can log in with:',
};

export type SsoDiscoveryStringKey = keyof typeof ssoDiscoveryEn;
export type SsoDiscoveryStrings = Record<SsoDiscoveryStringKey, string>;
export type SsoDiscoveryTranslate = (key: SsoDiscoveryStringKey, vars?: Record<string, string | number>) => string;

/** English with the integrator's overrides of SSO discovery keys (other keys are ignored). */
export function ssoDiscoveryTranslator(override: Record<string, unknown> | undefined): SsoDiscoveryTranslate {
  const table: SsoDiscoveryStrings = { ...ssoDiscoveryEn };
  for (const [key, value] of Object.entries(override ?? {})) {
    if (key in ssoDiscoveryEn && typeof value === 'string') table[key as SsoDiscoveryStringKey] = value;
  }
  return createTranslator(table);
}
