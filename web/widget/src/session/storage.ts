import type { Member, MemberSession, Organization } from '../api/types';

/** The cached login state, stored as JSON under `stytch_sdk_state_{public_token}`. */
export interface StoredState {
  member: Member;
  organization: Organization;
  session: MemberSession;
}

export function stateKey(publicToken: string): string {
  return `stytch_sdk_state_${publicToken}`;
}

export function parseStoredState(raw: string | null): StoredState | null {
  if (!raw) return null;
  try {
    const v = JSON.parse(raw) as Partial<StoredState> | null;
    if (v && typeof v === 'object' && v.session && v.member && v.organization) return v as StoredState;
  } catch {
    // A corrupt entry is treated as "logged out"; it is overwritten on the next login.
  }
  return null;
}

export function readStoredState(key: string): StoredState | null {
  try {
    return parseStoredState(localStorage.getItem(key));
  } catch {
    return null;
  }
}

export function writeStoredState(key: string, state: StoredState | null): void {
  try {
    if (state) localStorage.setItem(key, JSON.stringify(state));
    else localStorage.removeItem(key);
  } catch {
    // Storage can be disabled (private mode, policies); cookies still carry the session.
  }
}
