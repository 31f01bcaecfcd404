/**
 * One function per /sdk/v1 operation the widget uses (api-reference section 3). Functions are thin
 * and typed; session side effects live in session/, flow decisions in b2b/thunks.ts.
 */
import type { HttpClient } from './http';
import type {
  AuthenticateResponse,
  AuthenticateResponseWithMFA,
  OrganizationSearchResponse,
  ResponseCommon,
} from './types';

export function searchOrganization(http: HttpClient, body: { organization_slug: string }) {
  return http.post<OrganizationSearchResponse>('/b2b/organizations/search', body);
}

export interface MagicLinkLoginOrSignupBody {
  email_address: string;
  organization_id: string;
  login_redirect_url?: string | undefined;
  signup_redirect_url?: string | undefined;
  login_template_id?: string | undefined;
  signup_template_id?: string | undefined;
  locale?: string | undefined;
  pkce_code_challenge?: string | undefined;
}

export function magicLinkEmailLoginOrSignup(http: HttpClient, body: MagicLinkLoginOrSignupBody) {
  return http.post<ResponseCommon>('/b2b/magic_links/email/login_or_signup', { ...body });
}

export interface MagicLinkAuthenticateBody {
  magic_links_token: string;
  session_duration_minutes: number;
  locale?: string | undefined;
  pkce_code_verifier?: string | undefined;
  intermediate_session_token?: string | undefined;
}

export function magicLinkAuthenticate(http: HttpClient, body: MagicLinkAuthenticateBody) {
  return http.post<AuthenticateResponseWithMFA>('/b2b/magic_links/authenticate', { ...body });
}

export interface OtpEmailLoginOrSignupBody {
  organization_id: string;
  email_address: string;
  login_template_id?: string | undefined;
  signup_template_id?: string | undefined;
  locale?: string | undefined;
}

export function otpEmailLoginOrSignup(http: HttpClient, body: OtpEmailLoginOrSignupBody) {
  return http.post<ResponseCommon>('/b2b/otps/email/login_or_signup', { ...body });
}

export interface OtpEmailAuthenticateBody {
  code: string;
  email_address: string;
  organization_id: string;
  session_duration_minutes: number;
  locale?: string | undefined;
  intermediate_session_token?: string | undefined;
}

export function otpEmailAuthenticate(http: HttpClient, body: OtpEmailAuthenticateBody) {
  return http.post<AuthenticateResponseWithMFA>('/b2b/otps/email/authenticate', { ...body });
}

/** Body is `{}` unless a duration is given (api-reference 3.4). */
export function sessionsAuthenticate(http: HttpClient, body: { session_duration_minutes?: number | undefined }) {
  return http.post<AuthenticateResponse>('/b2b/sessions/authenticate', { ...body });
}

/** Revoke sends no body at all. */
export function sessionsRevoke(http: HttpClient) {
  return http.post<ResponseCommon>('/b2b/sessions/revoke');
}

export function fetchBootstrap(http: HttpClient, publicToken: string) {
  return http.get<Record<string, unknown>>(`/projects/bootstrap/${encodeURIComponent(publicToken)}`);
}
