/**
 * Redeeming the token a redirect put in the page address (spec section 4). Only pages that land
 * with a token need it, so it is a part loaded on demand (parts/urlToken.ts); the controller has
 * already removed the token from the address and shows "Logging in..." while this loads.
 */
import { APIError } from '../api/errors';
import {
  impersonationAuthenticate,
  magicLinkAuthenticate,
  magicLinkDiscoveryAuthenticate,
  oauthAuthenticate,
  oauthDiscoveryAuthenticate,
  ssoAuthenticate,
} from '../api/operations';
import type { AuthenticateResponseWithMFA, DiscoveryAuthenticateResponse } from '../api/types';
import type { DiscoveryEntry } from './discoveryFlow';
import { redeemEmailLink } from './emailLinkPkce';
import { EventType } from './events';
import type { FlowCore } from './flowCore';
import { ErrorType } from './state/types';
import type { UrlToken } from './urlToken';

/**
 * Authenticates `urlToken`, then logs in, lists the organizations, or shows the Error screen.
 * `emailLocale` replaces the magic-link locale for an organization login link (the reset page's).
 */
export async function redeemUrlToken(
  core: FlowCore,
  discovery: DiscoveryEntry,
  urlToken: UrlToken,
  emailLocale?: string,
): Promise<void> {
  const { backend, getConfig, emit } = core.deps;
  const oauth = urlToken.type === 'oauth' || urlToken.type === 'discovery_oauth';
  const sso = urlToken.type === 'sso';
  // Spec section 4: only the organization magic link fails with the link error; every other type,
  // the emailed discovery link included, fails with the default one.
  const failureType = urlToken.type === 'multi_tenant_magic_links' ? ErrorType.EmailMagicLink : ErrorType.Default;
  // An OAuth or SSO token answers its own pair; an emailed link either email pair (redeemEmailLink).
  const redirectKind = oauth ? 'oauth' : sso ? 'sso' : null;
  const verifier = redirectKind ? backend.pkce.get(redirectKind)?.code_verifier : undefined;
  const config = getConfig();
  const duration = config.sessionDurationMinutes;
  const ist = core.intermediateSessionToken();
  let redeemed:
    | { discovery: DiscoveryAuthenticateResponse; event: EventType }
    | { primary: AuthenticateResponseWithMFA; event: EventType };
  try {
    switch (urlToken.type) {
      case 'discovery':
        redeemed = {
          discovery: await redeemEmailLink(backend.pkce, (v) =>
            magicLinkDiscoveryAuthenticate(backend.http, { discovery_magic_links_token: urlToken.token, pkce_code_verifier: v }),
          ),
          event: EventType.B2BMagicLinkDiscoveryAuthenticate,
        };
        break;
      case 'discovery_oauth':
        redeemed = {
          discovery: await oauthDiscoveryAuthenticate(backend.http, {
            discovery_oauth_token: urlToken.token,
            pkce_code_verifier: verifier,
          }),
          event: EventType.B2BOAuthDiscoveryAuthenticate,
        };
        break;
      case 'oauth':
        redeemed = {
          primary: await oauthAuthenticate(backend.http, {
            oauth_token: urlToken.token,
            session_duration_minutes: duration,
            pkce_code_verifier: verifier,
            intermediate_session_token: ist,
          }),
          event: EventType.B2BOAuthAuthenticate,
        };
        break;
      case 'sso':
        redeemed = {
          primary: await ssoAuthenticate(backend.http, {
            sso_token: urlToken.token,
            session_duration_minutes: duration,
            pkce_code_verifier: verifier,
            intermediate_session_token: ist,
          }),
          event: EventType.B2BSSOAuthenticate,
        };
        break;
      case 'multi_tenant_impersonation':
        // An operator acting as a member: always a full session, whose length the server fixes.
        redeemed = {
          primary: await impersonationAuthenticate(backend.http, { impersonation_token: urlToken.token }),
          event: EventType.B2BImpersonationAuthenticate,
        };
        break;
      case 'multi_tenant_magic_links':
        redeemed = {
          primary: await redeemEmailLink(backend.pkce, (v) =>
            magicLinkAuthenticate(backend.http, {
              magic_links_token: urlToken.token,
              session_duration_minutes: duration,
              locale: emailLocale ?? config.emailMagicLinksOptions.locale,
              pkce_code_verifier: v,
              intermediate_session_token: ist,
            }),
          ),
          event: EventType.B2BMagicLinkAuthenticate,
        };
        break;
      default: {
        const never: never = urlToken.type;
        throw new Error(`unknown token type ${JSON.stringify(never)}`);
      }
    }
  } catch (err) {
    const adBlocker = err instanceof APIError && err.error_type === 'ad_blocker_detected';
    core.fail(err, adBlocker ? ErrorType.AdBlockerDetected : failureType, false);
    return;
  }
  // The email pairs are spent by redeemEmailLink.
  if (redirectKind) backend.pkce.clear(redirectKind);
  if ('discovery' in redeemed) {
    await discovery.authenticated(redeemed.discovery, redeemed.event);
    return;
  }
  backend.session.applyAuthResponse(redeemed.primary);
  emit.event(redeemed.event, redeemed.primary);
  core.completePrimary(redeemed.primary);
}
