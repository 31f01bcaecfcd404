/** Wire types of the /sdk/v1 API (api-reference section 3.0), limited to the fields the widget reads. */

export type AuthMethodPolicyName =
  | 'magic_link'
  | 'email_otp'
  | 'password'
  | 'sso'
  | 'google_oauth'
  | 'microsoft_oauth'
  | 'hubspot_oauth'
  | 'slack_oauth'
  | 'github_oauth';

export interface SSOActiveConnection {
  connection_id: string;
  display_name: string;
  identity_provider: string;
}

/** The organization returned by `organizations/search` (OrganizationBySlugMatch). */
export interface Organization {
  organization_id: string;
  organization_name: string;
  organization_slug: string;
  organization_logo_url: string;
  sso_active_connections: SSOActiveConnection[];
  sso_default_connection_id: string | null;
  email_jit_provisioning: string;
  email_allowed_domains: string[];
  auth_methods: 'ALL_ALLOWED' | 'RESTRICTED' | string;
  allowed_auth_methods?: AuthMethodPolicyName[];
  mfa_methods?: 'ALL_ALLOWED' | 'RESTRICTED' | string;
  allowed_mfa_methods?: string[];
  mfa_policy?: string;
}

export interface Member {
  member_id: string;
  organization_id: string;
  email_address: string;
  email_address_verified: boolean;
  member_password_id: string;
  mfa_phone_number: string;
  mfa_phone_number_verified: boolean;
  totp_registration_id: string;
  default_mfa_method: string;
  [extra: string]: unknown;
}

export interface MemberSession {
  member_session_id: string;
  member_id: string;
  organization_id: string;
  started_at: string;
  last_accessed_at: string;
  expires_at: string;
  roles: string[];
  organization_slug?: string;
  authentication_factors?: unknown[];
  custom_claims?: Record<string, unknown>;
}

export interface ResponseCommon {
  request_id: string;
  status_code: number;
}

export interface MfaRequired {
  member_options: { mfa_phone_number: string; totp_registration_id: string } | null;
  secondary_auth_initiated: 'sms_otp' | null;
}

/** B2BAuthenticateResponse: sessions/authenticate and other calls that always log in. */
export interface AuthenticateResponse extends ResponseCommon {
  member_id: string;
  member_session: MemberSession | null;
  member: Member;
  organization: Organization;
  session_token: string;
  session_jwt: string;
  intermediate_session_token?: string;
}

/** B2BAuthenticateResponseWithMFA: primary authentication may stop at an intermediate session. */
export interface AuthenticateResponseWithMFA extends AuthenticateResponse {
  member_authenticated: boolean;
  intermediate_session_token: string;
  mfa_required: MfaRequired | null;
  primary_required: { allowed_auth_methods: AuthMethodPolicyName[] } | null;
  method_id?: string;
}

export interface OrganizationSearchResponse extends ResponseCommon {
  organization: Organization | null;
}

export type MembershipType =
  | 'active_member'
  | 'pending_member'
  | 'invited_member'
  | 'eligible_to_join_by_email_domain'
  | 'eligible_to_join_by_oauth_tenant';

/** One organization found for a verified email (api-reference 3.0, DiscoveredOrganization). */
export interface DiscoveredOrganization {
  organization: Organization;
  membership: {
    type: MembershipType | string;
    details: Record<string, unknown> | null;
    member: Member | null;
  };
  member_authenticated: boolean;
  primary_required: { allowed_auth_methods: AuthMethodPolicyName[] } | null;
  mfa_required: MfaRequired | null;
}

/** B2BDiscoveryAuthenticateResponse: a verified email, its organizations and an intermediate session. */
export interface DiscoveryAuthenticateResponse extends ResponseCommon {
  intermediate_session_token: string;
  email_address: string;
  discovered_organizations: DiscoveredOrganization[];
  organization_id_hint?: string | null;
}

/** b2b/totp (create): a pending authenticator-app registration (api-reference 3.9). */
export interface TotpCreateResponse extends ResponseCommon {
  member_id: string;
  member: Member;
  organization: Organization;
  totp_registration_id: string;
  secret: string;
  qr_code: string;
  recovery_codes: string[];
}

/** b2b/recovery_codes/recover (api-reference 3.10). */
export interface RecoveryCodesRecoverResponse extends AuthenticateResponse {
  recovery_codes_remaining: number;
}
