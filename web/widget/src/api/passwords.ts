/**
 * The password operations of /sdk/v1 (api-reference 3.3) that the reset page runs: the strength
 * check and the three ways to set a new password. Thin typed wrappers; the flow decisions live in
 * b2b/passwordReset.ts. Sign-in and the reset emails are in passwordSignIn.ts: each file goes with
 * one part of the widget (b2b/parts.ts), so neither part downloads the other's.
 */
import type { HttpClient } from './http';
import type { AuthenticateResponse, AuthenticateResponseWithMFA, DiscoveryAuthenticateResponse, ResponseCommon } from './types';

export type StrengthPolicy = 'zxcvbn' | 'luds' | 'none';

/** `strength_check` answer: the server is the only judge of a password (spec section 5). */
export interface StrengthCheckResponse extends ResponseCommon {
  valid_password: boolean;
  score: number;
  breached_password: boolean;
  strength_policy: StrengthPolicy | string;
  breach_detection_on_create?: boolean;
  zxcvbn_feedback: { warning: string; suggestions: string[] };
  luds_feedback: {
    has_lower_case: boolean;
    has_upper_case: boolean;
    has_digit: boolean;
    has_symbol: boolean;
    missing_complexity: number;
    missing_characters: number;
  };
}

export function passwordStrengthCheck(http: HttpClient, body: { password: string; email_address?: string | undefined }) {
  return http.post<StrengthCheckResponse>('/b2b/passwords/strength_check', { ...body });
}

export interface PasswordResetByEmailBody {
  password_reset_token: string;
  password: string;
  session_duration_minutes: number;
  locale?: string | undefined;
  code_verifier?: string | undefined;
  intermediate_session_token?: string | undefined;
}

export function passwordResetByEmail(http: HttpClient, body: PasswordResetByEmailBody) {
  return http.post<AuthenticateResponseWithMFA>('/b2b/passwords/email/reset', { ...body });
}

export function passwordDiscoveryReset(
  http: HttpClient,
  body: {
    password_reset_token: string;
    password: string;
    pkce_code_verifier?: string | undefined;
    intermediate_session_token?: string | undefined;
  },
) {
  return http.post<DiscoveryAuthenticateResponse>('/b2b/passwords/discovery/reset', { ...body });
}

/** The session is the Basic-auth password; the body holds only the new password. */
export function passwordResetBySession(http: HttpClient, body: { password: string }) {
  return http.post<AuthenticateResponse>('/b2b/passwords/session/reset', { ...body });
}
