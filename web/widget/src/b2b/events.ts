/** `callbacks.onEvent` types for operations of this slice (names shared with the SDK wire format). */
export const EventType = {
  B2BOrganizationsGetBySlug: 'B2B_ORGANIZATIONS_GET_BY_SLUG',
  B2BMagicLinkEmailLoginOrSignup: 'B2B_MAGIC_LINK_EMAIL_LOGIN_OR_SIGNUP',
  B2BMagicLinkAuthenticate: 'B2B_MAGIC_LINK_AUTHENTICATE',
  B2BOTPEmailLoginOrSignup: 'B2B_OTP_EMAIL_LOGIN_OR_SIGNUP',
  B2BOTPEmailAuthenticate: 'B2B_OTP_EMAIL_AUTHENTICATE',
  AuthenticateFlowComplete: 'AUTHENTICATE_FLOW_COMPLETE',
} as const;
export type EventType = (typeof EventType)[keyof typeof EventType];

export interface WidgetEvent {
  type: EventType;
  data: unknown;
}
