import { describe, expect, it } from 'vitest';
import type { AuthenticateResponseWithMFA, Organization } from '../../api/types';
import { ACME, loggedInResponse } from '../../test/fakeServer';
import { AuthFlowType } from '../config';
import { chooseMfaMethod, mfaEnrollmentMethods, mfaPrimaryInfo, SMS_OTP_LIFETIME_MS } from './mfa';
import { initialState, reducer } from './reducer';
import { ErrorType, Screen, type Action, type MfaContext, type MfaMethod, type WidgetState } from './types';

const NOW = 1_000_000;
const ctx = (over: Partial<MfaContext> = {}): MfaContext => ({ now: NOW, productOrder: [], productInclude: null, ...over });
const run = (state: WidgetState, ...actions: Action[]) => actions.reduce(reducer, state);
const base = loggedInResponse().member;

interface Setup {
  sms?: boolean;
  totp?: boolean;
  defaultMethod?: string;
  initiated?: boolean;
  allowed?: MfaMethod[] | null;
}

/** An mfa_required answer for a member with the given enrollment, in an org restricting MFA to `allowed`. */
function mfaResponse({ sms = false, totp = false, defaultMethod = '', initiated = false, allowed = null }: Setup = {}) {
  const organization = allowed ? { ...ACME, mfa_methods: 'RESTRICTED', allowed_mfa_methods: allowed } : ACME;
  return loggedInResponse({
    member_session: null,
    member_authenticated: false,
    session_token: '',
    session_jwt: '',
    intermediate_session_token: 'ist',
    mfa_required: {
      member_options: sms || totp ? { mfa_phone_number: sms ? '+15555550100' : '', totp_registration_id: totp ? 'totp-1' : '' } : null,
      secondary_auth_initiated: initiated ? 'sms_otp' : null,
    },
    member: {
      ...base,
      mfa_phone_number: sms ? '+15555550100' : '',
      mfa_phone_number_verified: sms,
      totp_registration_id: totp ? 'totp-1' : '',
      default_mfa_method: defaultMethod,
    },
    organization,
  }) as unknown as AuthenticateResponseWithMFA;
}

const withOrg = () =>
  reducer(initialState(AuthFlowType.Organization), { type: 'organizationResolved', organization: ACME as unknown as Organization });

function login(setup: Setup = {}, c: MfaContext = ctx()) {
  return reducer(withOrg(), { type: 'primaryAuthSucceeded', response: mfaResponse(setup), mfa: c });
}

const TOTP_CREATED: Action = {
  type: 'mfaTotpCreated',
  memberId: 'member-test-1',
  organizationId: ACME.organization_id,
  secret: 'ABCDEFGHIJKLMNOP',
  qrCode: 'data:image/png;base64,AAAA',
  recoveryCodes: ['aaaa-bbbb-cccc', 'dddd-eeee-ffff'],
};

describe('MFA primary info (spec section 4 step 3)', () => {
  it('records what the member enrolled and what the organization permits', () => {
    const s = login({ sms: true, allowed: ['totp', 'sms_otp'] });
    expect(s.mfa.primaryInfo).toEqual({
      enrolledMfaMethods: ['sms_otp'],
      memberId: 'member-test-1',
      memberPhoneNumber: '+15555550100',
      organizationId: ACME.organization_id,
      organizationMfaOptionsSupported: ['totp', 'sms_otp'],
      postAuthScreen: Screen.LoggedIn,
    });
    const all = mfaPrimaryInfo(mfaResponse({ totp: true }), ACME as unknown as Organization);
    expect(all).toMatchObject({ enrolledMfaMethods: ['totp'], organizationMfaOptionsSupported: ['sms_otp', 'totp'] });
  });

  it('a restricted organization ignores unknown method names', () => {
    const info = mfaPrimaryInfo(mfaResponse({ allowed: ['totp', 'carrier_pigeon' as MfaMethod] }), {
      ...ACME,
      mfa_methods: 'RESTRICTED',
      allowed_mfa_methods: ['totp', 'carrier_pigeon'],
    } as unknown as Organization);
    expect(info.organizationMfaOptionsSupported).toEqual(['totp']);
  });
});

describe('which enrolled method is used', () => {
  it('the default method when enrolled and permitted', () => {
    expect(login({ sms: true, totp: true, defaultMethod: 'totp' }).screen).toBe(Screen.TOTPEntry);
    expect(login({ sms: true, totp: true, defaultMethod: 'sms_otp' }).screen).toBe(Screen.SMSOTPEntry);
  });

  it('otherwise the first permitted enrolled method', () => {
    expect(login({ sms: true, totp: true, defaultMethod: 'totp', allowed: ['sms_otp'] }).screen).toBe(Screen.SMSOTPEntry);
    expect(login({ sms: true, totp: true }).screen).toBe(Screen.SMSOTPEntry);
    expect(login({ totp: true, defaultMethod: 'sms_otp' }).screen).toBe(Screen.TOTPEntry);
    const restricted = { ...ACME, mfa_methods: 'RESTRICTED', allowed_mfa_methods: ['totp'] } as unknown as Organization;
    const both = mfaResponse({ sms: true, totp: true });
    expect(chooseMfaMethod(both, mfaPrimaryInfo(both, restricted))).toBe('totp');
  });

  it('SMS when the server initiated it, with the code expiring in 2 minutes', () => {
    const s = login({ sms: true, totp: true, defaultMethod: 'totp', initiated: true });
    expect(s).toMatchObject({ screen: Screen.SMSOTPEntry, screenHistory: [] });
    expect(s.mfa.smsOtp).toMatchObject({ codeExpiration: NOW + SMS_OTP_LIFETIME_MS, formattedDestination: '+15555550100' });
    expect(s.mfa.isEnrolling).toBe(false);
  });

  it('SMS that the server did not start has no code yet (the flow sends one)', () => {
    const s = login({ sms: true, defaultMethod: 'sms_otp' });
    expect(s.mfa.smsOtp.codeExpiration).toBeNull();
    expect(s.pending).toEqual({ organization: false, urlToken: false, discovery: false });
  });

  it('an enrolled method the organization forbids counts as nothing enrolled', () => {
    const s = login({ sms: true, allowed: ['totp'] });
    expect(s).toMatchObject({ screen: Screen.TOTPEnrollmentQRCode, mfa: { isEnrolling: true } });
  });
});

describe('enrolling mode (spec section 4 step 4)', () => {
  it('both methods allowed go to MFA Enrollment Selection, without back', () => {
    const s = login();
    expect(s).toMatchObject({ screen: Screen.MFAEnrollmentSelection, screenHistory: [], mfa: { isEnrolling: true } });
  });

  it('one allowed method goes straight to its enrollment', () => {
    expect(login({ allowed: ['totp'] }).screen).toBe(Screen.TOTPEnrollmentQRCode);
    expect(login({ allowed: ['sms_otp'] }).screen).toBe(Screen.SMSOTPEnrollment);
    expect(login({}, ctx({ productInclude: ['sms_otp'] })).screen).toBe(Screen.SMSOTPEnrollment);
  });

  it("the organization's restricted list wins over the UI's included list", () => {
    expect(login({ allowed: ['totp'] }, ctx({ productInclude: ['sms_otp'] })).screen).toBe(Screen.TOTPEnrollmentQRCode);
    expect(login({ allowed: ['totp', 'sms_otp'] }, ctx({ productInclude: ['sms_otp'] })).screen).toBe(
      Screen.MFAEnrollmentSelection,
    );
  });

  it('an empty include list means both; an empty restricted list is an error', () => {
    expect(login({}, ctx({ productInclude: [] })).screen).toBe(Screen.MFAEnrollmentSelection);
    expect(login({ allowed: [] })).toMatchObject({ screen: Screen.Error, error: { type: ErrorType.Default, canGoBack: false } });
  });

  it('the offered methods follow mfaProductOrder, limited by what is allowed', () => {
    const org = ACME as unknown as Organization;
    expect(mfaEnrollmentMethods(org, null, [])).toEqual(['sms_otp', 'totp']);
    expect(mfaEnrollmentMethods(org, null, ['totp', 'sms_otp'])).toEqual(['totp', 'sms_otp']);
    expect(mfaEnrollmentMethods(org, null, ['totp'])).toEqual(['totp', 'sms_otp']);
    expect(mfaEnrollmentMethods(org, ['totp'], ['sms_otp', 'totp'])).toEqual(['totp']);
    const restricted = { ...org, mfa_methods: 'RESTRICTED', allowed_mfa_methods: ['sms_otp'] };
    expect(mfaEnrollmentMethods(restricted, ['totp'], ['totp', 'sms_otp'])).toEqual(['sms_otp']);
  });

  it('choosing a method on the selection pushes its enrollment (back returns)', () => {
    const sms = reducer(login(), { type: 'mfaEnrollmentMethodSelected', method: 'sms_otp' });
    expect(sms).toMatchObject({ screen: Screen.SMSOTPEnrollment, screenHistory: [Screen.MFAEnrollmentSelection] });
    expect(reducer(sms, { type: 'back' }).screen).toBe(Screen.MFAEnrollmentSelection);
    expect(reducer(login(), { type: 'mfaEnrollmentMethodSelected', method: 'totp' }).screen).toBe(Screen.TOTPEnrollmentQRCode);
  });

  it('a session clears MFA state', () => {
    const s = reducer(login(), { type: 'primaryAuthSucceeded', response: loggedInResponse() as unknown as AuthenticateResponseWithMFA });
    expect(s).toMatchObject({ screen: Screen.LoggedIn, mfa: { primaryInfo: null, isEnrolling: false } });
  });
});

describe('SMS send', () => {
  const enrolling = () => reducer(login({ allowed: ['sms_otp'] }), { type: 'mfaSmsSendStarted' });

  it('sets the sending flag, then goes to SMS OTP Entry with a new 2-minute expiry, destination and number', () => {
    expect(enrolling().mfa.smsOtp.isSending).toBe(true);
    const s = reducer(enrolling(), {
      type: 'mfaSmsSent',
      now: NOW + 5000,
      formattedDestination: '+1 415 555 2671',
      enrolledNumber: { phoneNumber: '+14155552671', countryCode: 'US' },
    });
    expect(s).toMatchObject({ screen: Screen.SMSOTPEntry, screenHistory: [Screen.SMSOTPEnrollment] });
    expect(s.mfa.smsOtp).toEqual({
      isSending: false,
      sendError: null,
      codeExpiration: NOW + 5000 + SMS_OTP_LIFETIME_MS,
      formattedDestination: '+1 415 555 2671',
      enrolledNumber: { phoneNumber: '+14155552671', countryCode: 'US' },
    });
    // A resend from the entry screen renews the expiry and keeps the number.
    const resent = run(s, { type: 'mfaSmsSendStarted' }, { type: 'mfaSmsSent', now: NOW + 60_000, formattedDestination: '+1 415 555 2671', enrolledNumber: null });
    expect(resent).toMatchObject({ screen: Screen.SMSOTPEntry, screenHistory: [Screen.SMSOTPEnrollment] });
    expect(resent.mfa.smsOtp).toMatchObject({ codeExpiration: NOW + 60_000 + SMS_OTP_LIFETIME_MS, enrolledNumber: { phoneNumber: '+14155552671' } });
  });

  it('an error is stored and leaves the code already expired', () => {
    const s = reducer(enrolling(), { type: 'mfaSmsSendFailed', now: NOW + 7, error: 'Too many requests.' });
    expect(s.screen).toBe(Screen.SMSOTPEnrollment);
    expect(s.mfa.smsOtp).toMatchObject({ isSending: false, sendError: 'Too many requests.', codeExpiration: NOW + 7 });
    expect(reducer(s, { type: 'mfaSmsSendStarted' }).mfa.smsOtp.sendError).toBeNull();
  });

  it("the member's own number gets its display form; other numbers are not overwritten", () => {
    const s = login({ sms: true, defaultMethod: 'sms_otp' });
    const formatted = reducer(s, { type: 'mfaSmsDestinationFormatted', phoneNumber: '+15555550100', formattedDestination: '+1 555 555 0100' });
    expect(formatted.mfa.smsOtp.formattedDestination).toBe('+1 555 555 0100');
    expect(reducer(s, { type: 'mfaSmsDestinationFormatted', phoneNumber: '+19999999999', formattedDestination: 'x' })).toBe(s);
  });
});

describe('TOTP', () => {
  const creating = () => reducer(login({ allowed: ['totp'] }), { type: 'mfaTotpCreateStarted' });

  it('create stores secret, QR code, recovery codes and method qr', () => {
    expect(creating().mfa.totp.isCreating).toBe(true);
    const s = reducer(creating(), TOTP_CREATED);
    expect(s.mfa.totp).toEqual({
      isCreating: false,
      createError: null,
      enrollment: { secret: 'ABCDEFGHIJKLMNOP', qrCode: 'data:image/png;base64,AAAA', recoveryCodes: ['aaaa-bbbb-cccc', 'dddd-eeee-ffff'], method: 'qr' },
    });
  });

  it('create is ignored while already creating', () => {
    const s = creating();
    expect(reducer(s, { type: 'mfaTotpCreateStarted' })).toBe(s);
  });

  it('a create result for another member or organization is not applied', () => {
    const otherMember = reducer(creating(), { ...TOTP_CREATED, memberId: 'member-test-2' } as Action);
    expect(otherMember.mfa.totp).toEqual({ isCreating: false, createError: null, enrollment: null });
    const otherOrg = reducer(creating(), { ...TOTP_CREATED, organizationId: 'organization-test-other' } as Action);
    expect(otherOrg.mfa.totp.enrollment).toBeNull();
  });

  it('a create error is stored', () => {
    expect(reducer(creating(), { type: 'mfaTotpCreateFailed', error: 'nope' }).mfa.totp).toEqual({
      isCreating: false,
      createError: 'nope',
      enrollment: null,
    });
  });

  it('show code toggles between the QR and manual screens, keeping the way back', () => {
    const created = reducer(reducer(login(), { type: 'mfaEnrollmentMethodSelected', method: 'totp' }), TOTP_CREATED);
    const manual = reducer(created, { type: 'mfaTotpCodeToggled' });
    expect(manual).toMatchObject({ screen: Screen.TOTPEnrollmentManual, screenHistory: [Screen.MFAEnrollmentSelection] });
    expect(manual.mfa.totp.enrollment?.method).toBe('manual');
    const qr = reducer(manual, { type: 'mfaTotpCodeToggled' });
    expect(qr).toMatchObject({ screen: Screen.TOTPEnrollmentQRCode, mfa: { totp: { enrollment: { method: 'qr' } } } });
    // Nothing to show before create answered.
    const early = login({ allowed: ['totp'] });
    expect(reducer(early, { type: 'mfaTotpCodeToggled' })).toBe(early);
    expect(reducer(early, { type: 'mfaTotpEntryRequested' })).toBe(early);
  });

  it('enrolling: entry is pushed, and authenticate goes to Recovery Code Save (no back)', () => {
    const entry = run(login({ allowed: ['totp'] }), TOTP_CREATED, { type: 'mfaTotpEntryRequested' });
    expect(entry).toMatchObject({ screen: Screen.TOTPEntry, screenHistory: [Screen.TOTPEnrollmentQRCode] });
    expect(reducer(entry, { type: 'back' }).screen).toBe(Screen.TOTPEnrollmentQRCode);
    const saved = reducer(entry, { type: 'mfaAuthenticated', method: 'totp' });
    expect(saved).toMatchObject({ screen: Screen.RecoveryCodeSave, screenHistory: [] });
    expect(saved.mfa.totp.enrollment?.recoveryCodes).toHaveLength(2);
    const done = reducer(saved, { type: 'mfaRecoveryCodesAcknowledged' });
    expect(done).toMatchObject({ screen: Screen.LoggedIn, screenHistory: [], mfa: { primaryInfo: null, totp: { enrollment: null } } });
  });

  it('not enrolling: authenticate goes to the post-auth screen and resets MFA', () => {
    const s = reducer(login({ totp: true }), { type: 'mfaAuthenticated', method: 'totp' });
    expect(s).toMatchObject({ screen: Screen.LoggedIn, mfa: { primaryInfo: null, isEnrolling: false } });
  });
});

describe('finishing and switching', () => {
  it('SMS and recovery-code success go to the post-auth screen and reset MFA', () => {
    for (const method of ['sms_otp', 'recovery_code'] as const) {
      const s = reducer(login({ sms: true, totp: true, defaultMethod: 'totp' }), { type: 'mfaAuthenticated', method });
      expect(s).toMatchObject({ screen: Screen.LoggedIn, screenHistory: [], primary: null, mfa: { primaryInfo: null } });
    }
  });

  it('SMS enrollment success also ends MFA (no recovery codes)', () => {
    const s = run(
      login({ allowed: ['sms_otp'] }),
      { type: 'mfaSmsSent', now: NOW, formattedDestination: 'x', enrolledNumber: { phoneNumber: '+1', countryCode: 'US' } },
      { type: 'mfaAuthenticated', method: 'sms_otp' },
    );
    expect(s.screen).toBe(Screen.LoggedIn);
  });

  it('switching between TOTP and SMS needs both enrolled and supported', () => {
    const both = login({ sms: true, totp: true, defaultMethod: 'totp' });
    const sms = reducer(both, { type: 'mfaMethodSwitched', method: 'sms_otp' });
    expect(sms.screen).toBe(Screen.SMSOTPEntry);
    expect(reducer(sms, { type: 'mfaMethodSwitched', method: 'totp' }).screen).toBe(Screen.TOTPEntry);
    const restricted = login({ sms: true, totp: true, defaultMethod: 'totp', allowed: ['totp'] });
    expect(reducer(restricted, { type: 'mfaMethodSwitched', method: 'sms_otp' })).toBe(restricted);
    const one = login({ totp: true });
    expect(reducer(one, { type: 'mfaMethodSwitched', method: 'sms_otp' })).toBe(one);
  });

  it('the backup-code entry is pushed from TOTP entry', () => {
    const s = reducer(login({ totp: true }), { type: 'mfaRecoveryCodeEntryRequested' });
    expect(s).toMatchObject({ screen: Screen.RecoveryCodeEntry, screenHistory: [Screen.TOTPEntry] });
    expect(reducer(s, { type: 'back' }).screen).toBe(Screen.TOTPEntry);
  });

  it('MFA actions outside MFA change nothing', () => {
    const s = withOrg();
    expect(reducer(s, { type: 'mfaAuthenticated', method: 'totp' })).toBe(s);
    expect(reducer(s, TOTP_CREATED)).toBe(s);
  });
});
