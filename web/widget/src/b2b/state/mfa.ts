/**
 * Multi-factor authentication in the reducer (spec section 4, "After primary authentication
 * success", steps 3 and 4, and the SMS, TOTP and recovery-code transitions). Pure: times arrive in
 * actions, and the effects that cause these actions live in b2b/mfaFlow.ts.
 */
import type { AuthenticateResponseWithMFA, Organization } from '../../api/types';
import { push, replace } from './navigation';
import { Screen, type Action, type MfaAction, type MfaContext, type MfaMethod, type MfaPrimaryInfo, type MfaState, type WidgetState } from './types';

/** Lifetime the UI assumes for a texted code (spec section 9). */
export const SMS_OTP_LIFETIME_MS = 2 * 60 * 1000;

export const ALL_MFA_METHODS: readonly MfaMethod[] = ['sms_otp', 'totp'];

export function isMfaMethod(m: unknown): m is MfaMethod {
  return (ALL_MFA_METHODS as readonly unknown[]).includes(m);
}

export function initialMfaState(): MfaState {
  return {
    primaryInfo: null,
    isEnrolling: false,
    smsOtp: { isSending: false, sendError: null, codeExpiration: null, formattedDestination: null, enrolledNumber: null },
    totp: { isCreating: false, createError: null, enrollment: null },
  };
}

/**
 * Spec section 4 step 3: what the member has enrolled and what the organization permits, and where
 * the login ends once MFA is done (Logged In, or the reset form on a password-reset page).
 */
export function mfaPrimaryInfo(
  resp: AuthenticateResponseWithMFA,
  org: Organization,
  postAuthScreen: Screen = Screen.LoggedIn,
): MfaPrimaryInfo {
  const member = resp.member;
  const enrolled: MfaMethod[] = [];
  if (member.mfa_phone_number_verified) enrolled.push('sms_otp');
  if (member.totp_registration_id) enrolled.push('totp');
  return {
    enrolledMfaMethods: enrolled,
    memberId: resp.member_id || member.member_id,
    memberPhoneNumber: member.mfa_phone_number || null,
    organizationId: org.organization_id,
    organizationMfaOptionsSupported: organizationMfaMethods(org),
    postAuthScreen,
  };
}

/** The MFA methods an organization permits: its restricted list, or every method. */
export function organizationMfaMethods(org: Organization): MfaMethod[] {
  return org.mfa_methods === 'RESTRICTED' ? (org.allowed_mfa_methods ?? []).filter(isMfaMethod) : [...ALL_MFA_METHODS];
}

/**
 * Spec section 4 step 4: the methods a member without any may enroll, in the configured order:
 * the organization's restricted list, else the UI's included list, else both.
 */
export function mfaEnrollmentMethods(
  org: Organization | null,
  productInclude: MfaMethod[] | null,
  productOrder: MfaMethod[],
): MfaMethod[] {
  let allowed: MfaMethod[];
  if (org?.mfa_methods === 'RESTRICTED') allowed = organizationMfaMethods(org);
  else if (productInclude && productInclude.length > 0) allowed = productInclude;
  else allowed = [...ALL_MFA_METHODS];
  const rank = (m: MfaMethod) => {
    const i = productOrder.indexOf(m);
    return i === -1 ? productOrder.length + ALL_MFA_METHODS.indexOf(m) : i;
  };
  return [...new Set(allowed)].sort((a, b) => rank(a) - rank(b));
}

/** Enrolled methods the organization permits, in enrollment order. */
export function usableMfaMethods(info: MfaPrimaryInfo): MfaMethod[] {
  return info.enrolledMfaMethods.filter((m) => info.organizationMfaOptionsSupported.includes(m));
}

/** Spec section 4 step 3: the method used when the member has one enrolled, else null. */
export function chooseMfaMethod(resp: AuthenticateResponseWithMFA, info: MfaPrimaryInfo): MfaMethod | null {
  const usable = usableMfaMethods(info);
  if (usable.length === 0) return null;
  if (resp.mfa_required?.secondary_auth_initiated === 'sms_otp' && usable.includes('sms_otp')) return 'sms_otp';
  const preferred = resp.member.default_mfa_method;
  if (isMfaMethod(preferred) && usable.includes(preferred)) return preferred;
  return usable[0] ?? null;
}

/** Whether an entry screen offers switching to the other method (both enrolled and permitted). */
export function canSwitchMfaMethod(mfa: MfaState): boolean {
  return !mfa.isEnrolling && mfa.primaryInfo !== null && usableMfaMethods(mfa.primaryInfo).length === ALL_MFA_METHODS.length;
}

const ENROLLMENT_SCREEN: Record<MfaMethod, Screen> = {
  sms_otp: Screen.SMSOTPEnrollment,
  totp: Screen.TOTPEnrollmentQRCode,
};

const ENTRY_SCREEN: Record<MfaMethod, Screen> = {
  sms_otp: Screen.SMSOTPEntry,
  totp: Screen.TOTPEntry,
};

/**
 * Enters MFA after a primary authentication that answered mfa_required. Returns null when MFA
 * cannot proceed (no organization, or nothing the member could enroll).
 */
export function enterMfa(
  state: WidgetState,
  resp: AuthenticateResponseWithMFA,
  org: Organization,
  ctx: MfaContext,
  postAuthScreen: Screen,
): WidgetState | null {
  const info = mfaPrimaryInfo(resp, org, postAuthScreen);
  const fresh = { ...initialMfaState(), primaryInfo: info };
  const method = chooseMfaMethod(resp, info);
  if (method) {
    const smsOtp = { ...fresh.smsOtp };
    if (method === 'sms_otp') {
      smsOtp.formattedDestination = info.memberPhoneNumber;
      // The server already texted a code; otherwise mfaFlow sends one when the screen opens.
      if (resp.mfa_required?.secondary_auth_initiated === 'sms_otp') smsOtp.codeExpiration = ctx.now + SMS_OTP_LIFETIME_MS;
    }
    return { ...replace(state, ENTRY_SCREEN[method]), mfa: { ...fresh, smsOtp } };
  }
  const methods = mfaEnrollmentMethods(org, ctx.productInclude, ctx.productOrder);
  const only = methods.length === 1 ? methods[0] : undefined;
  if (methods.length === 0) return null;
  const screen = only ? ENROLLMENT_SCREEN[only] : Screen.MFAEnrollmentSelection;
  return { ...replace(state, screen), mfa: { ...fresh, isEnrolling: true } };
}

/** Shows `screen` in place of the current one, keeping the way back (a toggle or a switch). */
function swap(state: WidgetState, screen: Screen): WidgetState {
  return { ...state, screen };
}

/** SMS or recovery-code success, a TOTP success outside enrollment, or the codes saved. */
function finish(state: WidgetState): WidgetState {
  const screen = state.mfa.primaryInfo?.postAuthScreen ?? Screen.LoggedIn;
  return { ...replace(state, screen), mfa: initialMfaState(), primary: null };
}

function withSms(state: WidgetState, patch: Partial<MfaState['smsOtp']>): WidgetState {
  return { ...state, mfa: { ...state.mfa, smsOtp: { ...state.mfa.smsOtp, ...patch } } };
}

function withTotp(state: WidgetState, patch: Partial<MfaState['totp']>): WidgetState {
  return { ...state, mfa: { ...state.mfa, totp: { ...state.mfa.totp, ...patch } } };
}

/** The MFA transitions. Actions that do not fit the current MFA state leave it unchanged. */
export function mfaReducer(state: WidgetState, action: MfaAction): WidgetState {
  const mfa = state.mfa;
  if (!mfa.primaryInfo) return state;
  switch (action.type) {
    case 'mfaEnrollmentMethodSelected':
      if (!mfa.isEnrolling) return state;
      return push(state, ENROLLMENT_SCREEN[action.method]);
    case 'mfaSmsSendStarted':
      return withSms(state, { isSending: true, sendError: null });
    case 'mfaSmsSent': {
      const next = withSms(state, {
        isSending: false,
        sendError: null,
        codeExpiration: action.now + SMS_OTP_LIFETIME_MS,
        formattedDestination: action.formattedDestination,
        enrolledNumber: action.enrolledNumber ?? mfa.smsOtp.enrolledNumber,
      });
      return push(next, Screen.SMSOTPEntry);
    }
    case 'mfaSmsSendFailed':
      // The code counts as expired, so the entry screen offers a new one rather than a countdown.
      return withSms(state, { isSending: false, sendError: action.error, codeExpiration: action.now });
    case 'mfaSmsDestinationFormatted':
      if (mfa.smsOtp.enrolledNumber || mfa.primaryInfo.memberPhoneNumber !== action.phoneNumber) return state;
      return withSms(state, { formattedDestination: action.formattedDestination });
    case 'mfaTotpCreateStarted':
      if (mfa.totp.isCreating) return state;
      return withTotp(state, { isCreating: true, createError: null });
    case 'mfaTotpCreated': {
      const settled = withTotp(state, { isCreating: false });
      // A late answer for another member or organization (a new login meanwhile) is dropped.
      if (action.memberId !== mfa.primaryInfo.memberId || action.organizationId !== mfa.primaryInfo.organizationId) {
        return settled;
      }
      const { secret, qrCode, recoveryCodes } = action;
      return withTotp(settled, { createError: null, enrollment: { secret, qrCode, recoveryCodes, method: 'qr' } });
    }
    case 'mfaTotpCreateFailed':
      return withTotp(state, { isCreating: false, createError: action.error });
    case 'mfaTotpCodeToggled': {
      const enrollment = mfa.totp.enrollment;
      if (!enrollment) return state;
      const method = enrollment.method === 'qr' ? 'manual' : 'qr';
      const next = withTotp(state, { enrollment: { ...enrollment, method } });
      return swap(next, method === 'qr' ? Screen.TOTPEnrollmentQRCode : Screen.TOTPEnrollmentManual);
    }
    case 'mfaTotpEntryRequested':
      return mfa.totp.enrollment ? push(state, Screen.TOTPEntry) : state;
    case 'mfaMethodSwitched':
      if (!canSwitchMfaMethod(mfa)) return state;
      return swap(state, ENTRY_SCREEN[action.method]);
    case 'mfaRecoveryCodeEntryRequested':
      return push(state, Screen.RecoveryCodeEntry);
    case 'mfaAuthenticated':
      if (action.method === 'totp' && mfa.isEnrolling) return replace(state, Screen.RecoveryCodeSave);
      return finish(state);
    case 'mfaRecoveryCodesAcknowledged':
      return finish(state);
    default: {
      const never: never = action;
      throw new Error(`unknown MFA action ${JSON.stringify(never)}`);
    }
  }
}

/**
 * MFA actions are exactly those whose type starts with "mfa"; the two checks below make any action
 * breaking that rule a compile error, so the routing in reducer.ts stays a prefix test.
 */
type Prefixed = `mfa${string}`;
const everyMfaActionIsPrefixed: Exclude<MfaAction['type'], Prefixed> extends never ? true : never = true;
const noOtherActionIsPrefixed: Extract<Exclude<Action, MfaAction>['type'], Prefixed> extends never ? true : never = true;
void everyMfaActionIsPrefixed;
void noOtherActionIsPrefixed;

export function isMfaAction(action: Action): action is MfaAction {
  return action.type.startsWith('mfa');
}
