import type { ComponentType } from 'react';
import { Screen } from '../state/types';
import { DiscoveryScreen } from './DiscoveryScreen';
import { EmailConfirmationScreen } from './EmailConfirmationScreen';
import { EmailMethodSelectionScreen } from './EmailMethodSelectionScreen';
import { EmailOTPEntryScreen } from './EmailOTPEntryScreen';
import { ErrorScreen } from './ErrorScreen';
import { LoggedInScreen } from './LoggedInScreen';
import { MainScreen } from './MainScreen';
import { MFAEnrollmentSelectionScreen } from './mfa/MFAEnrollmentSelectionScreen';
import { RecoveryCodeEntryScreen } from './mfa/RecoveryCodeEntryScreen';
import { RecoveryCodeSaveScreen } from './mfa/RecoveryCodeSaveScreen';
import { SMSOTPEnrollmentScreen } from './mfa/SMSOTPEnrollmentScreen';
import { SMSOTPEntryScreen } from './mfa/SMSOTPEntryScreen';
import { TOTPEnrollmentManualScreen } from './mfa/TOTPEnrollmentManualScreen';
import { TOTPEnrollmentQRCodeScreen } from './mfa/TOTPEnrollmentQRCodeScreen';
import { TOTPEntryScreen } from './mfa/TOTPEntryScreen';
import { PasswordAuthenticateScreen } from './PasswordAuthenticateScreen';
import { PasswordResetVerifyConfirmationScreen, PasswordSetNewConfirmationScreen } from './PasswordConfirmationScreens';
import { PasswordEmailScreen } from './PasswordEmailScreen';
import { PasswordForgotScreen } from './PasswordForgotScreen';
import { PasswordResetScreen } from './PasswordResetScreen';
import { onDemand } from '../sso/load';

/** One component per Screen; a Screen without an entry here does not compile. */
export const SCREENS: Record<Screen, ComponentType> = {
  [Screen.Main]: MainScreen,
  [Screen.EmailMethodSelection]: EmailMethodSelectionScreen,
  [Screen.EmailConfirmation]: EmailConfirmationScreen,
  [Screen.EmailOTPEntry]: EmailOTPEntryScreen,
  [Screen.LoggedIn]: LoggedInScreen,
  [Screen.Error]: ErrorScreen,
  [Screen.Discovery]: DiscoveryScreen,
  // Multi-factor authentication
  [Screen.MFAEnrollmentSelection]: MFAEnrollmentSelectionScreen,
  [Screen.SMSOTPEnrollment]: SMSOTPEnrollmentScreen,
  [Screen.SMSOTPEntry]: SMSOTPEntryScreen,
  [Screen.TOTPEnrollmentQRCode]: TOTPEnrollmentQRCodeScreen,
  [Screen.TOTPEnrollmentManual]: TOTPEnrollmentManualScreen,
  [Screen.TOTPEntry]: TOTPEntryScreen,
  [Screen.RecoveryCodeSave]: RecoveryCodeSaveScreen,
  [Screen.RecoveryCodeEntry]: RecoveryCodeEntryScreen,
  // Passwords.
  [Screen.PasswordEmail]: PasswordEmailScreen,
  [Screen.PasswordAuthenticate]: PasswordAuthenticateScreen,
  [Screen.PasswordForgotForm]: PasswordForgotScreen,
  [Screen.PasswordResetForm]: PasswordResetScreen,
  [Screen.PasswordResetVerifyConfirmation]: PasswordResetVerifyConfirmationScreen,
  [Screen.PasswordSetNewConfirmation]: PasswordSetNewConfirmationScreen,
  // SSO discovery: loaded on demand.
  [Screen.SSODiscoveryEmail]: onDemand('SSODiscoveryEmailScreen'),
  [Screen.SSODiscoveryFallback]: onDemand('SSODiscoveryFallbackScreen'),
  [Screen.SSODiscoveryMenu]: onDemand('SSODiscoveryMenuScreen'),
};
