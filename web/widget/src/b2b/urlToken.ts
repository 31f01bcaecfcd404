/** The token a redirect puts in the page address (api-reference 1.11, spec section 4). */

export const URL_TOKEN_TYPES = [
  'discovery',
  'discovery_oauth',
  'oauth',
  'sso',
  'multi_tenant_magic_links',
  'multi_tenant_impersonation',
] as const;
export type UrlTokenType = (typeof URL_TOKEN_TYPES)[number];

export interface UrlToken {
  type: UrlTokenType;
  token: string;
}

/**
 * Reads `stytch_token_type` + `token`. Unknown types are ignored (another component of the page may
 * own them), and a password-reset redirect is left for the reset screen.
 */
export function readUrlToken(search: string): UrlToken | null {
  const params = new URLSearchParams(search);
  if (params.get('stytch_redirect_type') === 'reset_password') return null;
  const type = params.get('stytch_token_type');
  const token = params.get('token');
  if (!type || !token) return null;
  if (!(URL_TOKEN_TYPES as readonly string[]).includes(type)) return null;
  return { type: type as UrlTokenType, token };
}

/** Removes the token from the address bar so a reload or a shared link cannot replay it. */
export function stripUrlToken(): void {
  const url = new URL(window.location.href);
  url.searchParams.delete('stytch_token_type');
  url.searchParams.delete('token');
  window.history.replaceState(window.history.state, '', url.toString());
}
