import { describe, expect, it, vi } from 'vitest';
import { APIError } from '../api/errors';
import type { PkceKind, PkcePair } from '../api/pkce';
import { redeemEmailLink } from './emailLinkPkce';

function store(pairs: Partial<Record<PkceKind, string>>) {
  const held = new Map(Object.entries(pairs) as [PkceKind, string][]);
  return {
    held,
    get: (kind: PkceKind): PkcePair | null => (held.has(kind) ? { code_verifier: held.get(kind)!, code_challenge: 'c' } : null),
    clear: (kind: PkceKind) => void held.delete(kind),
  };
}

const pkceMismatch = () => new APIError({ error_type: 'pkce_mismatch', error_message: 'The PKCE code verifier does not match.' }, 400);

describe('redeemEmailLink', () => {
  it('tries the password-reset verifier first and clears both pairs once the link is redeemed', async () => {
    const pkce = store({ passwords: 'pw', magic_links: 'ml' });
    const redeem = vi.fn(async (v: string | undefined) => `ok:${v}`);
    await expect(redeemEmailLink(pkce, redeem)).resolves.toBe('ok:pw');
    expect(redeem.mock.calls).toEqual([['pw']]);
    expect(pkce.held.size).toBe(0);
  });

  it('falls back to the magic-link verifier when the server refuses the first for PKCE', async () => {
    const pkce = store({ passwords: 'pw', magic_links: 'ml' });
    const redeem = vi.fn(async (v: string | undefined) => {
      if (v !== 'ml') throw pkceMismatch();
      return 'ok';
    });
    await expect(redeemEmailLink(pkce, redeem)).resolves.toBe('ok');
    expect(redeem.mock.calls).toEqual([['pw'], ['ml']]);
    expect(pkce.held.size).toBe(0);
  });

  it('does not retry other errors, nor past the last candidate, and keeps the pairs on failure', async () => {
    const expired = new APIError({ error_type: 'unable_to_auth_magic_link', error_message: 'expired' }, 401);
    const pkce = store({ passwords: 'pw', magic_links: 'ml' });
    const other = vi.fn(async () => Promise.reject(expired));
    await expect(redeemEmailLink(pkce, other)).rejects.toBe(expired);
    expect(other).toHaveBeenCalledTimes(1);
    const refused = vi.fn(async () => Promise.reject(pkceMismatch()));
    await expect(redeemEmailLink(pkce, refused)).rejects.toThrow(/PKCE/);
    expect(refused.mock.calls).toEqual([['pw'], ['ml']]);
    expect(pkce.held.size).toBe(2);
  });

  it('sends no verifier without a pair, and the same verifier only once', async () => {
    const none = vi.fn(async (v: string | undefined) => v);
    await expect(redeemEmailLink(store({}), none)).resolves.toBeUndefined();
    expect(none.mock.calls).toEqual([[undefined]]);
    const same = vi.fn(async () => Promise.reject(pkceMismatch()));
    await expect(redeemEmailLink(store({ passwords: 'v', magic_links: 'v' }), same)).rejects.toThrow();
    expect(same).toHaveBeenCalledTimes(1);
  });
});
