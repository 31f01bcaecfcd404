/**
 * The forgotten-password part of the login flow, loaded on demand (see ../parts.ts): the reset page
 * with its strength check and the 'forgot password' form (its 'check your email' screens are in the
 * linkSent part).
 */
export { PasswordResetFlow } from '../passwordReset';
export { PasswordForgotScreen } from '../screens/PasswordForgotScreen';
export { PasswordResetScreen } from '../screens/PasswordResetScreen';
