import { base64Url } from './encoding';

export interface PkcePair {
  code_verifier: string;
  code_challenge: string;
}

/** Verifier: 16 random 32-bit values rendered as hex and concatenated (api-reference 1.7). */
export function createCodeVerifier(): string {
  const words = crypto.getRandomValues(new Uint32Array(16));
  return Array.from(words, (w) => w.toString(16)).join('');
}

/** S256 challenge: base64url(SHA-256(UTF-8 verifier)) without padding. */
export async function codeChallengeFor(verifier: string): Promise<string> {
  if (!crypto.subtle) {
    // SubtleCrypto exists only in secure contexts (https or localhost).
    throw new Error('PKCE requires a secure context (https or localhost).');
  }
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(verifier));
  return base64Url(new Uint8Array(digest));
}

export async function createPkcePair(): Promise<PkcePair> {
  const code_verifier = createCodeVerifier();
  return { code_verifier, code_challenge: await codeChallengeFor(code_verifier) };
}

export type PkceKind = 'magic_links' | 'oauth' | 'sso' | 'passwords';

/** Keeps PKCE pairs in localStorage under `{stateKey}::PKCE_VERIFIER:{kind}` so they survive the redirect. */
export class PkceStore {
  constructor(private readonly stateKey: string) {}

  private key(kind: PkceKind): string {
    return `${this.stateKey}::PKCE_VERIFIER:${kind}`;
  }

  get(kind: PkceKind): PkcePair | null {
    try {
      const raw = localStorage.getItem(this.key(kind));
      if (!raw) return null;
      const pair = JSON.parse(raw) as Partial<PkcePair>;
      if (typeof pair.code_verifier === 'string' && typeof pair.code_challenge === 'string') {
        return { code_verifier: pair.code_verifier, code_challenge: pair.code_challenge };
      }
    } catch {
      // Corrupt or inaccessible storage: behave as if no pair exists.
    }
    return null;
  }

  /** Returns the stored pair, creating and storing one first if none exists. */
  async getOrCreate(kind: PkceKind): Promise<PkcePair> {
    const existing = this.get(kind);
    if (existing) return existing;
    const pair = await createPkcePair();
    localStorage.setItem(this.key(kind), JSON.stringify(pair));
    return pair;
  }

  /** Replaces any stored pair with a fresh one (each OAuth or SSO start gets its own). */
  async renew(kind: PkceKind): Promise<PkcePair> {
    const pair = await createPkcePair();
    localStorage.setItem(this.key(kind), JSON.stringify(pair));
    return pair;
  }

  clear(kind: PkceKind): void {
    try {
      localStorage.removeItem(this.key(kind));
    } catch {
      // Nothing to clear when storage is unavailable.
    }
  }
}
