/**
 * The most recently used sign-in method, remembered per project in localStorage under
 * `stytch_sdk_state_{public_token}::b2b_last_used_method` (api-reference 1.7) so Main can put it
 * first. Values: an OAuth provider, `sso:{connection_id}`, or the email and password products.
 */
import { OAUTH_PROVIDERS, type OAuthProvider } from './config';

export type LastUsedMethod = OAuthProvider | `sso:${string}` | 'emailMagicLinks' | 'emailOtp' | 'passwords';

const PRODUCT_VALUES = new Set<string>(['emailMagicLinks', 'emailOtp', 'passwords']);

export function parseLastUsedMethod(raw: string | null): LastUsedMethod | null {
  if (!raw) return null;
  if ((OAUTH_PROVIDERS as readonly string[]).includes(raw) || PRODUCT_VALUES.has(raw)) return raw as LastUsedMethod;
  if (raw.startsWith('sso:') && raw.length > 'sso:'.length) return raw as LastUsedMethod;
  return null;
}

export function ssoLastUsed(connectionId: string): LastUsedMethod {
  return `sso:${connectionId}`;
}

/** Storage access; used by the controller only (screens read the value from state). */
export class LastUsedMethodStore {
  private readonly key: string;

  constructor(stateKey: string) {
    this.key = `${stateKey}::b2b_last_used_method`;
  }

  get(): LastUsedMethod | null {
    try {
      return parseLastUsedMethod(localStorage.getItem(this.key));
    } catch {
      // Storage disabled: nothing is remembered.
      return null;
    }
  }

  set(method: LastUsedMethod): void {
    try {
      localStorage.setItem(this.key, method);
    } catch {
      // Remembering the method is a convenience; a login must not fail over it.
    }
  }
}
