import { describe, expect, it } from 'vitest';
import { codeChallengeFor, createCodeVerifier, createPkcePair, PkceStore } from './pkce';

describe('PKCE', () => {
  it('builds the verifier from 16 uint32 values rendered as hex', () => {
    for (let i = 0; i < 50; i++) {
      const v = createCodeVerifier();
      expect(v).toMatch(/^[0-9a-f]+$/);
      // Each word is 1..8 hex digits (no zero padding), so the length varies between 16 and 128.
      expect(v.length).toBeGreaterThanOrEqual(16);
      expect(v.length).toBeLessThanOrEqual(128);
    }
    expect(createCodeVerifier()).not.toBe(createCodeVerifier());
  });

  it('derives the S256 challenge as unpadded base64url (RFC 7636 appendix B vector)', async () => {
    await expect(codeChallengeFor('dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk')).resolves.toBe(
      'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
    );
  });

  it('creates matching pairs', async () => {
    const pair = await createPkcePair();
    expect(pair.code_challenge).toBe(await codeChallengeFor(pair.code_verifier));
    expect(pair.code_challenge).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });

  it('stores, reuses and clears the pair under the documented localStorage key', async () => {
    const store = new PkceStore('stytch_sdk_state_public-token-test-1');
    const key = 'stytch_sdk_state_public-token-test-1::PKCE_VERIFIER:magic_links';
    const first = await store.getOrCreate('magic_links');
    expect(JSON.parse(localStorage.getItem(key)!)).toEqual(first);
    expect(await store.getOrCreate('magic_links')).toEqual(first);
    store.clear('magic_links');
    expect(localStorage.getItem(key)).toBeNull();
    expect(store.get('magic_links')).toBeNull();
  });

  it('renew replaces a stored pair with a new one', async () => {
    const store = new PkceStore('stytch_sdk_state_public-token-test-1');
    const first = await store.getOrCreate('oauth');
    const renewed = await store.renew('oauth');
    expect(renewed.code_verifier).not.toBe(first.code_verifier);
    expect(store.get('oauth')).toEqual(renewed);
    expect(await codeChallengeFor(renewed.code_verifier)).toBe(renewed.code_challenge);
  });
});
