/**
 * Parts of the login flow that load on demand. Every page pays for what it downloads, and most
 * logins never see multi-factor screens, a password, a password reset, the organization list or a
 * token in the page address, so those live in chunks of their own (the ESM build's esm/*.js, the standalone
 * script's standalone/*.js). A part holds its screens and the effects behind them; the reducer stays
 * whole, so every state transition is synchronous and a part only has to be present once its screen
 * renders.
 */
export type DiscoveryPart = typeof import('./parts/discovery');
export type LinkSentPart = typeof import('./parts/linkSent');
export type MfaPart = typeof import('./parts/mfa');
export type PasswordsPart = typeof import('./parts/passwords');
export type PasswordResetPart = typeof import('./parts/passwordReset');
export type SsoDiscoveryPart = typeof import('./parts/ssoDiscovery');
export type UrlTokenPart = typeof import('./parts/urlToken');

export interface PartModules {
  discovery: DiscoveryPart;
  linkSent: LinkSentPart;
  mfa: MfaPart;
  passwords: PasswordsPart;
  passwordReset: PasswordResetPart;
  ssoDiscovery: SsoDiscoveryPart;
  urlToken: UrlTokenPart;
}
export type PartName = keyof PartModules;

/** The import of each part. A failed import is not remembered: the next attempt fetches again. */
export const importPart: { [K in PartName]: () => Promise<PartModules[K]> } = {
  discovery: () => import('./parts/discovery'),
  linkSent: () => import('./parts/linkSent'),
  mfa: () => import('./parts/mfa'),
  passwords: () => import('./parts/passwords'),
  passwordReset: () => import('./parts/passwordReset'),
  ssoDiscovery: () => import('./parts/ssoDiscovery'),
  urlToken: () => import('./parts/urlToken'),
};
