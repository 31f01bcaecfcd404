/**
 * Which PKCE verifier redeems an emailed link (api-reference 3.1). A magic-link send binds its link
 * to the `magic_links` pair, but a password-reset start binds every link of its email to the
 * `passwords` pair, the "log in without a password" link included, which lands on the login page.
 */
import { APIError } from '../api/errors';
import type { PkceStore } from '../api/pkce';

/**
 * Calls `redeem` with the `passwords` verifier first, then with the `magic_links` one when the
 * server's refusal names PKCE. Once a link is redeemed both pairs are spent and cleared; any other
 * error, or the last candidate's, is thrown.
 */
export async function redeemEmailLink<T>(
  pkce: Pick<PkceStore, 'get' | 'clear'>,
  redeem: (verifier: string | undefined) => Promise<T>,
): Promise<T> {
  const verifiers = [pkce.get('passwords')?.code_verifier, pkce.get('magic_links')?.code_verifier];
  const candidates = [...new Set(verifiers.filter((v): v is string => Boolean(v)))];
  for (let i = 0; ; i++) {
    try {
      const resp = await redeem(candidates[i]);
      pkce.clear('passwords');
      pkce.clear('magic_links');
      return resp;
    } catch (err) {
      const retry = err instanceof APIError && /pkce/i.test(err.error_message) && i + 1 < candidates.length;
      if (!retry) throw err;
    }
  }
}
