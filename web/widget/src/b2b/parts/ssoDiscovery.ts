/**
 * The SSO discovery part of the login flow, loaded on demand (see ../parts.ts): 'Continue with SSO'
 * in discovery. The email step, the slug fallback, the connection menu, and the effects behind them.
 */
export { SsoDiscoveryFlow } from '../sso/ssoDiscoveryFlow';
export { SSODiscoveryEmailScreen, SSODiscoveryFallbackScreen, SSODiscoveryMenuScreen } from '../sso/SsoDiscoveryScreens';
