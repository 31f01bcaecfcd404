import type {
  AuthenticateResponseWithMFA,
  AuthMethodPolicyName,
  DiscoveredOrganization,
  Organization,
  SSOActiveConnection,
} from '../../api/types';
import type { AuthFlowType } from '../config';
import type { LastUsedMethod } from '../lastUsed';
import type { PasswordAction, PasswordFormState, ResetTokenType } from './passwordTypes';

/**
 * Screens implemented so far. The registry in screens/registry.ts is keyed by this enum, so adding
 * a member without its screen is a compile error.
 */
export const Screen = {
  Main: 'Main',
  EmailMethodSelection: 'EmailMethodSelection',
  EmailConfirmation: 'EmailConfirmation',
  EmailOTPEntry: 'EmailOTPEntry',
  LoggedIn: 'LoggedIn',
  Error: 'Error',
  /** The organization picker, including its "create one" and "none found" variants. */
  Discovery: 'Discovery',
  // Multi-factor authentication (spec section 4, after primary authentication).
  MFAEnrollmentSelection: 'MFAEnrollmentSelection',
  SMSOTPEnrollment: 'SMSOTPEnrollment',
  SMSOTPEntry: 'SMSOTPEntry',
  TOTPEnrollmentQRCode: 'TOTPEnrollmentQRCode',
  TOTPEnrollmentManual: 'TOTPEnrollmentManual',
  TOTPEntry: 'TOTPEntry',
  RecoveryCodeSave: 'RecoveryCodeSave',
  RecoveryCodeEntry: 'RecoveryCodeEntry',
  // Passwords (spec section 2).
  PasswordEmail: 'PasswordEmail',
  PasswordAuthenticate: 'PasswordAuthenticate',
  PasswordForgotForm: 'PasswordForgotForm',
  PasswordResetForm: 'PasswordResetForm',
  PasswordResetVerifyConfirmation: 'PasswordResetVerifyConfirmation',
  PasswordSetNewConfirmation: 'PasswordSetNewConfirmation',
  // SSO discovery (spec section 4): the email, then the connection menu or the slug fallback.
  SSODiscoveryEmail: 'SSODiscoveryEmail',
  SSODiscoveryFallback: 'SSODiscoveryFallback',
  SSODiscoveryMenu: 'SSODiscoveryMenu',
} as const;
export type Screen = (typeof Screen)[keyof typeof Screen];

export const ErrorType = {
  Default: 'Default',
  EmailMagicLink: 'EmailMagicLink',
  Organization: 'Organization',
  CannotJoinOrgDueToAuthPolicy: 'CannotJoinOrgDueToAuthPolicy',
  AdBlockerDetected: 'AdBlockerDetected',
  OrganizationDiscoveryClaimedDomain: 'OrganizationDiscoveryClaimedDomain',
} as const;
export type ErrorType = (typeof ErrorType)[keyof typeof ErrorType];

export type MfaMethod = 'sms_otp' | 'totp';

/** What the MFA screens (a later slice) start from after primary authentication. */
export interface MfaPrimaryInfo {
  enrolledMfaMethods: MfaMethod[];
  memberId: string;
  memberPhoneNumber: string | null;
  organizationId: string;
  organizationMfaOptionsSupported: MfaMethod[];
  postAuthScreen: Screen;
}

/** An authenticator-app registration in progress (TOTP create). */
export interface TotpEnrollment {
  secret: string;
  /** A PNG data URL, shown as an image. */
  qrCode: string;
  recoveryCodes: string[];
  /** Which enrollment screen shows it. */
  method: 'qr' | 'manual';
}

/** The MFA part of the widget state (spec section 3). */
export interface MfaState {
  primaryInfo: MfaPrimaryInfo | null;
  /** Nothing was enrolled: the member is setting up a method now. */
  isEnrolling: boolean;
  smsOtp: {
    isSending: boolean;
    sendError: string | null;
    /** Epoch milliseconds when the last texted code stops working. */
    codeExpiration: number | null;
    formattedDestination: string | null;
    /** The number being enrolled: E.164, and the region chosen for it. */
    enrolledNumber: { phoneNumber: string; countryCode: string } | null;
  };
  totp: { isCreating: boolean; createError: string | null; enrollment: TotpEnrollment | null };
}

/** What the reducer needs from outside to decide the MFA step of a primary authentication. */
export interface MfaContext {
  now: number;
  /** The configured order of MFA methods (mfaProductOrder). */
  productOrder: MfaMethod[];
  /** The configured MFA methods (mfaProductInclude); null when not configured. */
  productInclude: MfaMethod[] | null;
}

/** Set when the server asks for another primary method before the member may log in. */
export interface PrimaryState {
  allowedAuthMethods: AuthMethodPolicyName[];
  email: string;
  emailVerified: boolean;
}

export interface WidgetState {
  screen: Screen;
  screenHistory: Screen[];
  formState: {
    emailState: { userSuppliedEmail: string };
    /** Epoch milliseconds when the last emailed passcode stops working. */
    otpState: { codeExpiration: number | null };
    /** The verified email and what discovery found for it. */
    discoveryState: { email: string; discoveredOrganizations: DiscoveredOrganization[] };
    /** The email of the password screens and the strength verdict of the password being set. */
    passwordState: PasswordFormState;
    /** The connections SSO discovery found for the email (the menu lists them). */
    ssoDiscoveryState: { connections: SSOActiveConnection[] };
  };
  flowState: { type: AuthFlowType; organization: Organization | null };
  mfa: MfaState;
  primary: PrimaryState | null;
  error: { type: ErrorType; canGoBack: boolean } | null;
  /** Work in flight that replaces the screen with a spinner. */
  pending: { organization: boolean; urlToken: boolean; discovery: boolean };
  /** The method remembered from an earlier visit (read once at start). */
  lastUsedMethod: LastUsedMethod | null;
  /** Set while the page resets a password: how the new password will be set. */
  passwordReset: { tokenType: ResetTokenType } | null;
}

export type Action =
  | { type: 'organizationLookupStarted' }
  | { type: 'organizationResolved'; organization: Organization }
  /** No organization by that slug, or (`errorType` Default) the lookup itself failed. */
  | { type: 'organizationMissing'; errorType?: ErrorType }
  | { type: 'emailMethodSelectionRequested'; email: string }
  | { type: 'magicLinkSent'; email: string }
  | { type: 'otpSent'; email: string; codeExpiration: number }
  | { type: 'urlTokenAuthenticating'; active: boolean }
  /** `mfa` is required to enter multi-factor authentication; without it MFA is an error. */
  | { type: 'primaryAuthSucceeded'; response: AuthenticateResponseWithMFA; mfa?: MfaContext }
  | { type: 'lastUsedMethodLoaded'; method: LastUsedMethod | null }
  | { type: 'discoveryAuthenticated'; email: string; organizations: DiscoveredOrganization[] }
  /** Organization create or intermediate-session exchange in flight. */
  | { type: 'discoveryPending'; active: boolean }
  /** A discovered organization needs another primary method first (primary_required). */
  | { type: 'discoveryPrimaryRequired'; discovered: DiscoveredOrganization }
  /** 'Continue with SSO' in discovery: the SSO Discovery Email screen. */
  | { type: 'ssoDiscoveryStarted' }
  /** The email's connections: none leads to the slug fallback, several to the menu, one starts SSO. */
  | { type: 'ssoDiscoveryConnectionsFound'; email: string; connections: SSOActiveConnection[] }
  /** The slug fallback found an organization without a single connection to start: its Main. */
  | { type: 'ssoDiscoveryOrganizationFound'; organization: Organization }
  | { type: 'errorOccurred'; errorType: ErrorType; canGoBack: boolean }
  | { type: 'back' }
  | { type: 'returnToMain' }
  | PasswordAction
  | MfaAction;

/** Multi-factor authentication steps (reduced in state/mfa.ts). */
export type MfaAction =
  | { type: 'mfaEnrollmentMethodSelected'; method: MfaMethod }
  | { type: 'mfaSmsSendStarted' }
  | {
      type: 'mfaSmsSent';
      now: number;
      formattedDestination: string;
      /** Set when the code went to a number being enrolled. */
      enrolledNumber: { phoneNumber: string; countryCode: string } | null;
    }
  | { type: 'mfaSmsSendFailed'; now: number; error: string }
  /** The display form of the member's own number, once the phone library has it. */
  | { type: 'mfaSmsDestinationFormatted'; phoneNumber: string; formattedDestination: string }
  | { type: 'mfaTotpCreateStarted' }
  | { type: 'mfaTotpCreated'; memberId: string; organizationId: string; secret: string; qrCode: string; recoveryCodes: string[] }
  | { type: 'mfaTotpCreateFailed'; error: string }
  /** 'Show code' / 'Show QR code': between the two enrollment screens. */
  | { type: 'mfaTotpCodeToggled' }
  | { type: 'mfaTotpEntryRequested' }
  | { type: 'mfaMethodSwitched'; method: MfaMethod }
  | { type: 'mfaRecoveryCodeEntryRequested' }
  | { type: 'mfaAuthenticated'; method: MfaMethod | 'recovery_code' }
  | { type: 'mfaRecoveryCodesAcknowledged' };
