/** Pure rules of the password flow (spec sections 4 and 5). No I/O. */
import type { Organization } from '../api/types';
import { AuthFlowType } from './config';
import type { ResetTokenType } from './state/passwordTypes';

/**
 * Spec section 5, just-in-time provisioning: a non-member may join only if the organization allows
 * it, and under RESTRICTED only from one of its email domains.
 */
export function emailEligibleForJit(org: Organization, email: string): boolean {
  if (org.email_jit_provisioning === 'NOT_ALLOWED') return false;
  if (org.email_jit_provisioning !== 'RESTRICTED') return true;
  const domain = email.slice(email.lastIndexOf('@') + 1).toLowerCase();
  return (org.email_allowed_domains ?? []).some((d) => d.toLowerCase() === domain);
}

/** The zxcvbn bar: how many of its 4 segments are filled, and their colour. */
export interface MeterSegments {
  filled: 1 | 2 | 3 | 4;
  tone: 'weak' | 'strong';
}

/** Spec section 5: score 0-1 one red segment, 2 two red, 3 three green, 4 four green. */
export function meterSegments(score: number): MeterSegments {
  if (score >= 4) return { filled: 4, tone: 'strong' };
  if (score === 3) return { filled: 3, tone: 'strong' };
  if (score === 2) return { filled: 2, tone: 'weak' };
  return { filled: 1, tone: 'weak' };
}

const TOKEN_TYPES: ReadonlySet<string> = new Set(['multi_tenant_passwords', 'discovery', 'multi_tenant_magic_links']);

export interface ResetEntry {
  tokenType: ResetTokenType;
  token: string | null;
}

/**
 * Whether this page load resets a password, and how (spec sections 2 and 4): a redirect type of
 * reset_password, or a page mounted with the PasswordReset flow. A token of another type (or none)
 * means the password is set with the current session.
 */
export function resetEntry(search: string, configuredFlow: AuthFlowType): ResetEntry | null {
  const params = new URLSearchParams(search);
  if (params.get('stytch_redirect_type') !== 'reset_password' && configuredFlow !== AuthFlowType.PasswordReset) return null;
  const type = params.get('stytch_token_type') ?? '';
  const token = params.get('token');
  if (token && TOKEN_TYPES.has(type)) return { tokenType: type as ResetTokenType, token };
  return { tokenType: 'session', token: null };
}

/** Removes the reset parameters so a reload or a shared address cannot replay the token. */
export function stripResetParams(href: string): string {
  const url = new URL(href);
  for (const name of ['stytch_token_type', 'token', 'stytch_redirect_type']) url.searchParams.delete(name);
  return url.toString();
}
