/** `callbacks.onEvent` types for operations of this slice (names shared with the SDK wire format). */
export const EventType = {
  B2BOrganizationsGetBySlug: 'B2B_ORGANIZATIONS_GET_BY_SLUG',
  B2BMagicLinkEmailLoginOrSignup: 'B2B_MAGIC_LINK_EMAIL_LOGIN_OR_SIGNUP',
  B2BMagicLinkAuthenticate: 'B2B_MAGIC_LINK_AUTHENTICATE',
  B2BOTPEmailLoginOrSignup: 'B2B_OTP_EMAIL_LOGIN_OR_SIGNUP',
  B2BOTPEmailAuthenticate: 'B2B_OTP_EMAIL_AUTHENTICATE',
  B2BMagicLinkEmailDiscoverySend: 'B2B_MAGIC_LINK_EMAIL_DISCOVERY_SEND',
  B2BMagicLinkDiscoveryAuthenticate: 'B2B_MAGIC_LINK_DISCOVERY_AUTHENTICATE',
  B2BOTPEmailDiscoverySend: 'B2B_OTP_EMAIL_DISCOVERY_SEND',
  B2BOTPEmailDiscoveryAuthenticate: 'B2B_OTP_EMAIL_DISCOVERY_AUTHENTICATE',
  B2BOAuthAuthenticate: 'B2B_OAUTH_AUTHENTICATE',
  B2BOAuthDiscoveryAuthenticate: 'B2B_OAUTH_DISCOVERY_AUTHENTICATE',
  B2BSSOAuthenticate: 'B2B_SSO_AUTHENTICATE',
  B2BImpersonationAuthenticate: 'B2B_IMPERSONATION_AUTHENTICATE',
  B2BSSODiscoverConnections: 'B2B_SSO_DISCOVER_CONNECTIONS',
  B2BDiscoveryOrganizationsCreate: 'B2B_DISCOVERY_ORGANIZATIONS_CREATE',
  B2BDiscoveryIntermediateSessionExchange: 'B2B_DISCOVERY_INTERMEDIATE_SESSION_EXCHANGE',
  // Passwords (issue 4).
  B2BPasswordAuthenticate: 'B2B_PASSWORD_AUTHENTICATE',
  B2BPasswordDiscoveryAuthenticate: 'B2B_PASSWORD_DISCOVERY_AUTHENTICATE',
  B2BPasswordResetByEmailStart: 'B2B_PASSWORD_RESET_BY_EMAIL_START',
  B2BPasswordResetByEmail: 'B2B_PASSWORD_RESET_BY_EMAIL',
  B2BPasswordDiscoveryResetStart: 'B2B_PASSWORD_DISCOVERY_RESET_BY_EMAIL_START',
  B2BPasswordDiscoveryReset: 'B2B_PASSWORD_DISCOVERY_RESET_BY_EMAIL',
  B2BPasswordResetBySession: 'B2B_PASSWORD_RESET_BY_SESSION',
  AuthenticateFlowComplete: 'AUTHENTICATE_FLOW_COMPLETE',
  // Multi-factor authentication
  B2BSMSOTPSend: 'B2B_SMS_OTP_SEND',
  B2BSMSOTPAuthenticate: 'B2B_SMS_OTP_AUTHENTICATE',
  B2BTOTPCreate: 'B2B_TOTP_CREATE',
  B2BTOTPAuthenticate: 'B2B_TOTP_AUTHENTICATE',
  B2BRecoveryCodesRecover: 'B2B_RECOVERY_CODES_RECOVER',
} as const;
export type EventType = (typeof EventType)[keyof typeof EventType];

export interface WidgetEvent {
  type: EventType;
  data: unknown;
}
