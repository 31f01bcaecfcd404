/**
 * One function per /sdk/v1 operation the widget uses (api-reference section 3). Functions are thin
 * and typed; session side effects live in session/, flow decisions in b2b/controller.ts.
 */
import type { HttpClient } from './http';
import type {
  AuthenticateResponse,
  AuthenticateResponseWithMFA,
  DiscoveryAuthenticateResponse,
  OrganizationSearchResponse,
  RecoveryCodesRecoverResponse,
  ResponseCommon,
  TotpCreateResponse,
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

// Discovery (api-reference 3.1, 3.2, 3.7): the email is verified before an organization is chosen.

export interface MagicLinkDiscoverySendBody {
  email_address: string;
  discovery_redirect_url?: string | undefined;
  login_template_id?: string | undefined;
  locale?: string | undefined;
  pkce_code_challenge?: string | undefined;
}

export function magicLinkDiscoverySend(http: HttpClient, body: MagicLinkDiscoverySendBody) {
  return http.post<ResponseCommon>('/b2b/magic_links/email/discovery/send', { ...body });
}

export function magicLinkDiscoveryAuthenticate(
  http: HttpClient,
  body: { discovery_magic_links_token: string; pkce_code_verifier?: string | undefined },
) {
  return http.post<DiscoveryAuthenticateResponse>('/b2b/magic_links/discovery/authenticate', { ...body });
}

export interface OAuthAuthenticateBody {
  oauth_token: string;
  session_duration_minutes: number;
  locale?: string | undefined;
  pkce_code_verifier?: string | undefined;
  intermediate_session_token?: string | undefined;
}

/** Redeems the token an OAuth callback put in the page address (api-reference 3.5). */
export function oauthAuthenticate(http: HttpClient, body: OAuthAuthenticateBody) {
  return http.post<AuthenticateResponseWithMFA>('/b2b/oauth/authenticate', { ...body });
}

export function oauthDiscoveryAuthenticate(
  http: HttpClient,
  body: { discovery_oauth_token: string; pkce_code_verifier?: string | undefined },
) {
  return http.post<DiscoveryAuthenticateResponse>('/b2b/oauth/discovery/authenticate', { ...body });
}

/** The project's Google client id for One Tap; "" when Google is not configured (api-reference 3.5). */
export function oneTapStart(http: HttpClient) {
  return http.get<{ google_client_id: string }>('/b2b/oauth/google/onetap/start');
}

export interface OneTapSubmitBody {
  id_token: string;
  pkce_code_challenge?: string | undefined;
}

/** Submits a One Tap ID token; the browser then follows `redirect_url` as after an OAuth callback. */
export function oneTapSubmit(
  http: HttpClient,
  body: OneTapSubmitBody & { organization_id: string; login_redirect_url?: string | undefined; signup_redirect_url?: string | undefined },
) {
  return http.post<{ redirect_url: string }>('/b2b/oauth/google/onetap/submit', { ...body });
}

export function oneTapDiscoverySubmit(http: HttpClient, body: OneTapSubmitBody & { discovery_redirect_url?: string | undefined }) {
  return http.post<{ redirect_url: string }>('/b2b/oauth/google/onetap/discovery/submit', { ...body });
}

export interface SSOAuthenticateBody {
  sso_token: string;
  session_duration_minutes: number;
  locale?: string | undefined;
  pkce_code_verifier?: string | undefined;
  intermediate_session_token?: string | undefined;
}

/** Redeems the token an SSO login put in the page address (api-reference 3.6). */
export function ssoAuthenticate(http: HttpClient, body: SSOAuthenticateBody) {
  return http.post<AuthenticateResponseWithMFA>('/b2b/sso/authenticate', { ...body });
}

/** An operator's impersonation link (api-reference 3.13): the token only; the server fixes the session's length. */
export function impersonationAuthenticate(http: HttpClient, body: { impersonation_token: string }) {
  return http.post<AuthenticateResponseWithMFA>('/b2b/impersonation/authenticate', { ...body });
}

export interface OtpEmailDiscoverySendBody {
  email_address: string;
  login_template_id?: string | undefined;
  locale?: string | undefined;
}

export function otpEmailDiscoverySend(http: HttpClient, body: OtpEmailDiscoverySendBody) {
  return http.post<ResponseCommon>('/b2b/otps/email/discovery/send', { ...body });
}

export function otpEmailDiscoveryAuthenticate(http: HttpClient, body: { code: string; email_address: string }) {
  return http.post<DiscoveryAuthenticateResponse>('/b2b/otps/email/discovery/authenticate', { ...body });
}

/** The widget sends only the duration; the server names the organization after the email domain. */
export function discoveryOrganizationCreate(
  http: HttpClient,
  body: { session_duration_minutes: number; intermediate_session_token?: string | undefined },
) {
  return http.post<AuthenticateResponseWithMFA>('/b2b/discovery/organizations/create', { ...body });
}

export function discoveryIntermediateSessionExchange(
  http: HttpClient,
  body: {
    organization_id: string;
    session_duration_minutes: number;
    locale?: string | undefined;
    intermediate_session_token?: string | undefined;
  },
) {
  return http.post<AuthenticateResponseWithMFA>('/b2b/discovery/intermediate_sessions/exchange', { ...body });
}

// Multi-factor authentication (api-reference 3.8-3.10). Every call carries the intermediate session
// token of the login in progress.

interface MfaMemberBody {
  organization_id: string;
  member_id: string;
  intermediate_session_token?: string | undefined;
}

/** Sends a code to `mfa_phone_number` (enrollment) or, without it, to the enrolled number. */
export function smsOtpSend(
  http: HttpClient,
  body: MfaMemberBody & { mfa_phone_number?: string | undefined; locale?: string | undefined },
) {
  return http.post<ResponseCommon>('/b2b/otps/sms/send', { ...body });
}

export function smsOtpAuthenticate(http: HttpClient, body: MfaMemberBody & { code: string; session_duration_minutes: number }) {
  return http.post<AuthenticateResponse>('/b2b/otps/sms/authenticate', { ...body });
}

export function totpCreate(http: HttpClient, body: MfaMemberBody) {
  return http.post<TotpCreateResponse>('/b2b/totp', { ...body });
}

export function totpAuthenticate(http: HttpClient, body: MfaMemberBody & { code: string; session_duration_minutes: number }) {
  return http.post<AuthenticateResponse>('/b2b/totp/authenticate', { ...body });
}

export function recoveryCodesRecover(
  http: HttpClient,
  body: MfaMemberBody & { recovery_code: string; session_duration_minutes: number },
) {
  return http.post<RecoveryCodesRecoverResponse>('/b2b/recovery_codes/recover', { ...body });
}
