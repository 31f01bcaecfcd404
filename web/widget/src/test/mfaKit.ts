import { fireEvent } from '@testing-library/react';
import type { LoginConfig } from '../b2b/config';
import { ACME, json, loggedInResponse, type FakeServer } from './fakeServer';
import { acmeServer, renderLogin } from './harness';

export const OTP_SEND = '/b2b/otps/email/login_or_signup';
export const OTP_AUTH = '/b2b/otps/email/authenticate';
export const SMS_SEND = '/b2b/otps/sms/send';
export const SMS_AUTH = '/b2b/otps/sms/authenticate';
export const TOTP_CREATE = '/b2b/totp';
export const TOTP_AUTH = '/b2b/totp/authenticate';
export const RECOVER = '/b2b/recovery_codes/recover';

export const IST = 'ist-mfa';
export const MEMBER_ID = 'member-test-1';
export const MEMBER = { organization_id: ACME.organization_id, member_id: MEMBER_ID, intermediate_session_token: IST };

export interface MemberSetup {
  sms?: boolean;
  totp?: boolean;
  defaultMethod?: string;
  initiated?: boolean;
  allowed?: string[];
}

/** An email-OTP answer that stops at mfa_required for a member enrolled as described. */
export function mfaRequired({ sms = false, totp = false, defaultMethod = '', initiated = false, allowed }: MemberSetup = {}) {
  const base = loggedInResponse();
  return loggedInResponse({
    member_session: null,
    member_authenticated: false,
    session_token: '',
    session_jwt: '',
    intermediate_session_token: IST,
    mfa_required: {
      member_options: sms || totp ? { mfa_phone_number: sms ? '+14155552671' : '', totp_registration_id: totp ? 'totp-1' : '' } : null,
      secondary_auth_initiated: initiated ? 'sms_otp' : null,
    },
    member: {
      ...base.member,
      mfa_phone_number: sms ? '+14155552671' : '',
      mfa_phone_number_verified: sms,
      totp_registration_id: totp ? 'totp-1' : '',
      default_mfa_method: defaultMethod,
    },
    organization: allowed ? { ...ACME, mfa_methods: 'RESTRICTED', allowed_mfa_methods: allowed } : ACME,
  });
}

export const TOTP_SECRET = 'JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP';
export const RECOVERY_CODES = ['k7mq-3xbe-9ptw', 'a2cd-efgh-jkmn', 'pqrs-tuvw-xyz2'];

export function totpCreated() {
  const base = loggedInResponse();
  return {
    request_id: 'request-id-test',
    status_code: 200,
    member_id: MEMBER_ID,
    member: base.member,
    organization: ACME,
    totp_registration_id: 'member-totp-test-1',
    secret: TOTP_SECRET,
    qr_code: 'data:image/png;base64,iVBORw0KGgo=',
    recovery_codes: RECOVERY_CODES,
  };
}

/** A server whose email-OTP login answers `mfa`, and whose MFA calls log in. */
export function mfaServer(mfa: ReturnType<typeof mfaRequired>, organization: unknown = ACME): FakeServer {
  return acmeServer({}, organization)
    .on('POST', OTP_SEND, json({}))
    .on('POST', OTP_AUTH, json(mfa))
    .on('POST', SMS_SEND, json({ request_id: 'r', status_code: 200 }))
    .on('POST', SMS_AUTH, json(loggedInResponse()))
    .on('POST', TOTP_CREATE, json(totpCreated()))
    .on('POST', TOTP_AUTH, json(loggedInResponse()))
    .on('POST', RECOVER, json({ ...loggedInResponse(), recovery_codes_remaining: 9 }));
}

/** Renders the widget and logs in by email code up to the first MFA screen. */
export async function loginToMfa(server: FakeServer, config: Partial<LoginConfig> = {}) {
  const ui = renderLogin(server, {
    config: { products: ['emailOtp'], organizationSlug: 'acme', sessionOptions: { sessionDurationMinutes: 45 }, ...config },
  });
  fireEvent.change(await ui.findByLabelText('Email'), { target: { value: 'ada@acme.test' } });
  fireEvent.click(ui.getByRole('button', { name: 'Continue with email' }));
  fireEvent.change(await ui.findByLabelText('One-time passcode'), { target: { value: '111111' } });
  return ui;
}

export type LoginUI = Awaited<ReturnType<typeof loginToMfa>>;

/** Types a full code into the (single) one-time passcode field. */
export function typeCode(ui: LoginUI, code: string) {
  fireEvent.change(ui.getByLabelText('One-time passcode'), { target: { value: code } });
}
