import type {
  AuthenticateResponseWithMFA,
  AuthMethodPolicyName,
  DiscoveredOrganization,
  Organization,
} from '../../api/types';
import type { AuthFlowType } from '../config';
import type { LastUsedMethod } from '../lastUsed';

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
  /** The organization picker, including its "create one" and "none found" variants. */
  Discovery = 'Discovery',
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
    /** The verified email and what discovery found for it. */
    discoveryState: { email: string; discoveredOrganizations: DiscoveredOrganization[] };
  };
  flowState: { type: AuthFlowType; organization: Organization | null };
  mfa: { primaryInfo: MfaPrimaryInfo | null };
  primary: PrimaryState | null;
  error: { type: ErrorType; canGoBack: boolean } | null;
  /** Work in flight that replaces the screen with a spinner. */
  pending: { organization: boolean; urlToken: boolean; discovery: boolean };
  /** The method remembered from an earlier visit (read once at start). */
  lastUsedMethod: LastUsedMethod | null;
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
  | { type: 'lastUsedMethodLoaded'; method: LastUsedMethod | null }
  | { type: 'discoveryAuthenticated'; email: string; organizations: DiscoveredOrganization[] }
  /** Organization create or intermediate-session exchange in flight. */
  | { type: 'discoveryPending'; active: boolean }
  /** A discovered organization needs another primary method first (primary_required). */
  | { type: 'discoveryPrimaryRequired'; discovered: DiscoveredOrganization }
  | { type: 'errorOccurred'; errorType: ErrorType; canGoBack: boolean }
  | { type: 'back' }
  | { type: 'returnToMain' };
