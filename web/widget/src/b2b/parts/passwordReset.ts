/**
 * The forgotten-password part of the login flow, loaded on demand (see ../parts.ts): the reset page
 * with its strength check, the 'forgot password' form and the 'check your email' screens.
 */
export { PasswordResetFlow } from '../passwordReset';
export {
  PasswordResetVerifyConfirmationScreen,
  PasswordSetNewConfirmationScreen,
} from '../screens/PasswordConfirmationScreens';
export { PasswordForgotScreen } from '../screens/PasswordForgotScreen';
export { PasswordResetScreen } from '../screens/PasswordResetScreen';
