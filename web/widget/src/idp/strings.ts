/**
 * The identity provider's strings (consent and logout screens). They live with the lazily loaded
 * screens, not in the main table, so pages that only log people in do not download them; the
 * `strings` mount option overrides them like any other entry. Texts quoted by the spec are verbatim.
 */
import { createTranslator } from '../strings/t';

export const idpEn = {
  'idp.noSession': 'No active session detected. Please log in to continue.',
  // Not in the spec: the action under the error when prompt=login or max_age found the session too
  // old (OIDC Core 3.1.2.1 asks for reauthentication; the server's error_message says so). It ends
  // the session so that the page's login takes over, as without a session.
  'idp.loginAgain.button': 'Log in again',
  // Not in the spec (it has no text for it): shown instead of consent or the logout confirmation when
  // the page is framed (state.ts, framed). Plain, in the manner of the missing-parameter error.
  'idp.framed': 'For your security, this page cannot be shown inside another page. Please open it in its own window.',
  'idp.missingParam': 'Required parameter is missing: {name}. Please reach out to the application developer.',
  'idp.defaultClientName': 'The App',
  'idp.consent.title': '{clientName} wants to access your {projectName} account',
  'idp.consent.titleNoProject': '{clientName} wants to access your account',
  'idp.consent.logoAlt': '{clientName} logo',
  'idp.consent.header': '{clientName} will be able to:',
  'idp.consent.ungrantableHeader': 'You do not have permission to grant:',
  'idp.consent.ungrantableHelp': 'Ask your admin for access, or ask {clientName} to request fewer permissions.',
  'idp.consent.allow': 'Allow',
  'idp.consent.deny': 'Deny',
  'idp.consent.denied': 'Access to the application was denied.',
  'idp.redirecting': 'Redirecting',
  'idp.scope.openid': 'Confirm your identity',
  'idp.scope.profile': 'View your profile information, such as your name',
  'idp.scope.email': 'View your email address',
  'idp.scope.phone': 'View your phone number',
  'idp.scope.offline_access': 'Stay signed in and access your account while you are away',
  'idp.scope.full_access': 'Act on your behalf with full access to your account',
  'idp.logout.title': 'Log out?',
  'idp.logout.message': 'Are you sure you want to log out of your {projectName} account?',
  'idp.logout.messageNoProject': 'Are you sure you want to log out of your account?',
  'idp.logout.yes': 'Yes',
  'idp.logout.no': 'No',
  'idp.logout.notLoggedOut': 'You have not been logged out. You may close this page.',
};

export type IdpStringKey = keyof typeof idpEn;
export type IdpStrings = Record<IdpStringKey, string>;
export type IdpTranslate = (key: IdpStringKey, vars?: Record<string, string | number>) => string;

/** The IdP translator: English with the integrator's overrides of IdP keys. */
export function idpTranslator(override: Record<string, unknown> | undefined): IdpTranslate {
  const table: IdpStrings = { ...idpEn };
  for (const [key, value] of Object.entries(override ?? {})) {
    if (key in idpEn && typeof value === 'string') table[key as IdpStringKey] = value;
  }
  return createTranslator(table);
}
