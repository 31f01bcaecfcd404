/**
 * Public API of the Latchkey login widget (ESM build). The IIFE build (iife.ts) exposes the same
 * client API as `window.Latchkey`.
 */
export { B2BClient } from './client';
export type { ClientOptions, MountIdentityProviderOptions, MountLoginOptions, RBACAPI, SessionAPI } from './client';
export { scopesLacking } from './rbac';
export type { PermissionsMap, RBACPermission, RBACPolicy, RBACRole } from './rbac';
export { B2BLogin, B2BIdentityProvider } from './react';
export type { B2BIdentityProviderProps, B2BLoginProps } from './react';
export { AuthFlowType, B2BMFAProducts, B2BProducts } from './b2b/config';
export type { B2BMFAProduct, B2BProduct, LoginConfig, OAuthProvider } from './b2b/config';
export { EventType } from './b2b/events';
export type { WidgetEvent } from './b2b/events';
export type { WidgetErrorPayload } from './b2b/errorMessages';
export type { Callbacks, LoginOptions } from './b2b/LoginApp';
export type { IdentityProviderOptions } from './idp/IdentityProviderApp';
export { APIError, APISchemaError, APIUnreachableError, SDKUsageError } from './api/errors';
export type { Member, MemberSession, Organization } from './api/types';
export type { SessionSnapshot } from './session/manager';
export type { StringKey, Strings, StringsOverride } from './strings/en';
export type { WidgetStyles } from './theme/theme';
export { SDK_VERSION as version } from './version';
