/**
 * The password operations of /sdk/v1 (api-reference 3.3) for signing in and for sending the reset
 * emails, and the member lookup the password flow runs first (3.11). Thin typed wrappers; the flow
 * decisions live in b2b/passwordFlow.ts. The reset page's operations are in passwords.ts.
 */
import type { HttpClient } from './http';
import type { AuthenticateResponseWithMFA, DiscoveryAuthenticateResponse, ResponseCommon } from './types';

/** The internal member lookup: who this email is in the organization, or null. */
export interface MemberLookupResponse extends ResponseCommon {
  member: { status: string; name: string; member_password_id: string } | null;
}

export function searchMember(http: HttpClient, body: { email_address: string; organization_id: string }) {
  return http.post<MemberLookupResponse>('/b2b/organizations/members/search', { ...body });
}

export interface PasswordAuthenticateBody {
  organization_id: string;
  email_address: string;
  password: string;
  session_duration_minutes: number;
  locale?: string | undefined;
  code_verifier?: string | undefined;
  intermediate_session_token?: string | undefined;
}

export function passwordAuthenticate(http: HttpClient, body: PasswordAuthenticateBody) {
  return http.post<AuthenticateResponseWithMFA>('/b2b/passwords/authenticate', { ...body });
}

export function passwordDiscoveryAuthenticate(http: HttpClient, body: { email_address: string; password: string }) {
  return http.post<DiscoveryAuthenticateResponse>('/b2b/passwords/discovery/authenticate', { ...body });
}

/** Shared fields of the two reset starts (the PKCE field names differ, as in the reference). */
interface ResetStartCommon {
  email_address: string;
  reset_password_redirect_url?: string | undefined;
  reset_password_expiration_minutes?: number | undefined;
  reset_password_template_id?: string | undefined;
  verify_email_template_id?: string | undefined;
  locale?: string | undefined;
}

export interface PasswordResetStartBody extends ResetStartCommon {
  organization_id: string;
  login_redirect_url?: string | undefined;
  code_challenge?: string | undefined;
}

export function passwordResetByEmailStart(http: HttpClient, body: PasswordResetStartBody) {
  return http.post<ResponseCommon>('/b2b/passwords/email/reset/start', { ...body });
}

export interface PasswordDiscoveryResetStartBody extends ResetStartCommon {
  discovery_redirect_url?: string | undefined;
  pkce_code_challenge?: string | undefined;
}

export function passwordDiscoveryResetStart(http: HttpClient, body: PasswordDiscoveryResetStartBody) {
  return http.post<ResponseCommon>('/b2b/passwords/discovery/reset/start', { ...body });
}
