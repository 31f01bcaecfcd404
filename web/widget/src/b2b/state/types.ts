import type { AuthenticateResponseWithMFA, AuthMethodPolicyName, Organization } from '../../api/types';
import type { AuthFlowType } from '../config';

/**
 * Screens implemented so far. The registry in screens/registry.ts is keyed by this enum, so adding
 * a member without its screen is a compile error.
 */
export enum Screen {
  Main = 'Main',
  EmailMethodSelection = 'EmailMethodSelection',
  EmailConfirmation = 'EmailConfirmation',
  EmailOTPEntry = 'EmailOTPEntry',
  LoggedIn = 'LoggedIn',
  Error = 'Error',
}

export enum ErrorType {
  Default = 'Default',
  EmailMagicLink = 'EmailMagicLink',
  Organization = 'Organization',
  CannotJoinOrgDueToAuthPolicy = 'CannotJoinOrgDueToAuthPolicy',
  AdBlockerDetected = 'AdBlockerDetected',
  OrganizationDiscoveryClaimedDomain = 'OrganizationDiscoveryClaimedDomain',
}

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
  };
  flowState: { type: AuthFlowType; organization: Organization | null };
  mfa: { primaryInfo: MfaPrimaryInfo | null };
  primary: PrimaryState | null;
  error: { type: ErrorType; canGoBack: boolean } | null;
  /** Work in flight that replaces the screen with a spinner. */
  pending: { organization: boolean; urlToken: boolean };
}

export type Action =
  | { type: 'organizationLookupStarted' }
  | { type: 'organizationResolved'; organization: Organization }
  | { type: 'organizationMissing' }
  | { type: 'emailMethodSelectionRequested'; email: string }
  | { type: 'magicLinkSent'; email: string }
  | { type: 'otpSent'; email: string; codeExpiration: number }
  | { type: 'urlTokenAuthenticating'; active: boolean }
  | { type: 'primaryAuthSucceeded'; response: AuthenticateResponseWithMFA }
  | { type: 'errorOccurred'; errorType: ErrorType; canGoBack: boolean }
  | { type: 'back' }
  | { type: 'returnToMain' };
