/** The identity provider's SDK operations (api-reference 3.14) and session attestation. */
import type { HttpClient } from './http';
import type { AuthenticateResponse, ResponseCommon } from './types';

export interface AuthorizeBody {
  client_id: string;
  redirect_uri: string;
  response_type: string;
  scopes: string[];
  prompt?: string | undefined;
  state?: string | undefined;
  nonce?: string | undefined;
  code_challenge?: string | undefined;
  /** Forwarded as the relying party sent it (absent stays absent), so the server refuses `plain`. */
  code_challenge_method?: string | undefined;
  resources?: string[] | undefined;
  /** OIDC max_age as the page address carries it (seconds, a string); the server checks it. */
  max_age?: string | undefined;
}

export interface ScopeResult {
  scope: string;
  is_grantable: boolean;
  description: string;
}

export interface ConnectedAppPublic {
  client_id: string;
  client_type: string;
  client_name: string;
  client_description: string;
  client_logo_url?: string;
}

export interface AuthorizeStartResponse extends ResponseCommon {
  consent_required: boolean;
  client: ConnectedAppPublic;
  scope_results: ScopeResult[];
}

export interface AuthorizeSubmitResponse extends ResponseCommon {
  redirect_uri: string;
  authorization_code?: string;
}

export interface LogoutBody {
  client_id: string;
  post_logout_redirect_uri: string;
  id_token_hint?: string | undefined;
  state?: string | undefined;
}

export interface LogoutStartResponse extends ResponseCommon {
  redirect_uri: string;
  consent_required: boolean;
}

export function authorizeStart(http: HttpClient, body: AuthorizeBody) {
  return http.post<AuthorizeStartResponse>('/idp/b2b/oauth/authorize/start', { ...body });
}

export function authorizeSubmit(http: HttpClient, body: AuthorizeBody & { consent_granted: boolean }) {
  return http.post<AuthorizeSubmitResponse>('/idp/b2b/oauth/authorize/submit', { ...body });
}

export function logoutStart(http: HttpClient, body: LogoutBody) {
  return http.post<LogoutStartResponse>('/b2b/oauth/logout/start', { ...body });
}

export interface AttestBody {
  token: string;
  profile_id: string;
  organization_id?: string | undefined;
  session_duration_minutes: number;
}

export function sessionsAttest(http: HttpClient, body: AttestBody) {
  return http.post<AuthenticateResponse>('/b2b/sessions/attest', { ...body });
}
