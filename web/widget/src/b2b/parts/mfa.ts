/**
 * The multi-factor part of the login flow, loaded on demand (see ../parts.ts): most logins never
 * reach it. Its effects and every MFA screen.
 */
export { MfaFlow } from '../mfaFlow';
export { MFAEnrollmentSelectionScreen } from '../screens/mfa/MFAEnrollmentSelectionScreen';
export { RecoveryCodeEntryScreen } from '../screens/mfa/RecoveryCodeEntryScreen';
export { RecoveryCodeSaveScreen } from '../screens/mfa/RecoveryCodeSaveScreen';
export { SMSOTPEnrollmentScreen } from '../screens/mfa/SMSOTPEnrollmentScreen';
export { SMSOTPEntryScreen } from '../screens/mfa/SMSOTPEntryScreen';
export { TOTPEnrollmentManualScreen } from '../screens/mfa/TOTPEnrollmentManualScreen';
export { TOTPEnrollmentQRCodeScreen } from '../screens/mfa/TOTPEnrollmentQRCodeScreen';
export { TOTPEntryScreen } from '../screens/mfa/TOTPEntryScreen';
