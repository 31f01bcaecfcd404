/**
 * The "check your email" screens, loaded on demand (see ../parts.ts): after a magic link and after a
 * password reset link. They share LinkSentView with its webmail links, and are shown only once a
 * send has gone out, so the first load of the widget does not carry them.
 */
export { EmailConfirmationScreen } from '../screens/EmailConfirmationScreen';
export {
  PasswordResetVerifyConfirmationScreen,
  PasswordSetNewConfirmationScreen,
} from '../screens/PasswordConfirmationScreens';
