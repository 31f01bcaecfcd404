/**
 * Cookies written by the widget on the page's own origin (api-reference 1.7). The names are part of
 * the wire format shared with existing SDK integrations and must not change.
 */
export const SESSION_COOKIE = 'stytch_session';
export const SESSION_JWT_COOKIE = 'stytch_session_jwt';
export const IST_COOKIE = 'stytch_intermediate_session_token';

/** An intermediate session token lives 10 minutes (spec section 9). */
export const IST_LIFETIME_MS = 10 * 60 * 1000;

/**
 * Secure is dropped only for local development hosts, where pages are served over plain http and
 * browsers would otherwise refuse the cookie.
 */
export function isLocalDevHost(hostname: string): boolean {
  return hostname === 'localhost' || hostname === '[::1]' || /^127(\.\d{1,3}){3}$/.test(hostname);
}

export function getCookie(name: string): string | null {
  const prefix = `${name}=`;
  for (const part of document.cookie.split(';')) {
    const item = part.trim();
    if (!item.startsWith(prefix)) continue;
    const value = item.slice(prefix.length);
    try {
      return decodeURIComponent(value);
    } catch {
      return value;
    }
  }
  return null;
}

export function setCookie(name: string, value: string, expires: Date): void {
  const attrs = [`${name}=${encodeURIComponent(value)}`, `Expires=${expires.toUTCString()}`, 'Path=/', 'SameSite=Lax'];
  if (!isLocalDevHost(window.location.hostname)) attrs.push('Secure');
  document.cookie = attrs.join('; ');
}

export function removeCookie(name: string): void {
  const attrs = [`${name}=`, 'Expires=Thu, 01 Jan 1970 00:00:00 GMT', 'Path=/', 'SameSite=Lax'];
  if (!isLocalDevHost(window.location.hostname)) attrs.push('Secure');
  document.cookie = attrs.join('; ');
}
