import { fireEvent, waitFor } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { getCookie, SESSION_COOKIE } from '../../../session/cookies';
import { apiError, json, loggedInResponse } from '../../../test/fakeServer';
import {
  loginToMfa,
  MEMBER,
  mfaRequired,
  mfaServer,
  RECOVER,
  SMS_SEND,
  TOTP_AUTH,
  TOTP_CREATE,
  typeCode,
} from '../../../test/mfaKit';

describe('MFA Enrollment Selection', () => {
  it('appears when both methods are allowed, in mfaProductOrder, and leads to each enrollment', async () => {
    const ui = await loginToMfa(mfaServer(mfaRequired()), { mfaProductOrder: ['totp', 'smsOtp'] });
    await ui.findByRole('heading', { name: 'Set up multi-factor authentication' });
    const list = ui.getByRole('list', { name: 'Verification methods' });
    expect([...list.querySelectorAll('button')].map((b) => b.textContent)).toEqual(['Use an authenticator app', 'Text me a code']);
    fireEvent.click(ui.getByRole('button', { name: 'Text me a code' }));
    await ui.findByRole('heading', { name: 'Enter your phone number to set up multi-factor authentication' });
    fireEvent.click(ui.getByRole('button', { name: 'Back' }));
    fireEvent.click(await ui.findByRole('button', { name: 'Use an authenticator app' }));
    await ui.findByRole('img', { name: 'QR code for your authenticator app' });
    expect(ui.server.callsTo(TOTP_CREATE)).toHaveLength(1);
    expect(ui.server.callsTo(SMS_SEND)).toHaveLength(0);
  });

  it('mfaProductInclude limits the choice when the organization does not', async () => {
    const ui = await loginToMfa(mfaServer(mfaRequired()), { mfaProductInclude: ['smsOtp'] });
    await ui.findByRole('heading', { name: 'Enter your phone number to set up multi-factor authentication' });
  });

  it('the default order lists SMS first', async () => {
    const ui = await loginToMfa(mfaServer(mfaRequired()));
    const list = await ui.findByRole('list', { name: 'Verification methods' });
    expect([...list.querySelectorAll('button')].map((b) => b.textContent)).toEqual(['Text me a code', 'Use an authenticator app']);
  });
});

describe('TOTP entry for an enrolled member', () => {
  it('logs in with a code from the app, sending the IST', async () => {
    const ui = await loginToMfa(mfaServer(mfaRequired({ totp: true })));
    await ui.findByRole('heading', { name: 'Enter verification code' });
    expect(ui.queryByRole('button', { name: 'Text me a code instead' })).toBeNull();
    typeCode(ui, '246810');
    expect(await ui.findByRole('heading', { name: 'Success!' })).toBeTruthy();
    expect(ui.server.callsTo(TOTP_AUTH)[0]!.body).toEqual({ ...MEMBER, code: '246810', session_duration_minutes: 45 });
    expect(ui.server.callsTo(TOTP_CREATE)).toHaveLength(0);
    expect(ui.onEvent.mock.calls.map(([e]) => e.type)).toContain('AUTHENTICATE_FLOW_COMPLETE');
  });

  it('switches to SMS (sending a code) and back when both are enrolled and supported', async () => {
    const ui = await loginToMfa(mfaServer(mfaRequired({ sms: true, totp: true, defaultMethod: 'totp' })));
    await ui.findByRole('heading', { name: 'Enter verification code' });
    fireEvent.click(ui.getByRole('button', { name: 'Text me a code instead' }));
    expect(await ui.findByText('A 6-digit passcode was sent to you at +1 415 555 2671.')).toBeTruthy();
    await ui.findByText('Your code expires in 2:00.');
    expect(ui.server.callsTo(SMS_SEND).map((c) => c.body)).toEqual([MEMBER]);
    fireEvent.click(ui.getByRole('button', { name: 'Use an authenticator app instead' }));
    await ui.findByRole('heading', { name: 'Enter verification code' });
    // Back on SMS, the code sent before is still running: no second send.
    fireEvent.click(ui.getByRole('button', { name: 'Text me a code instead' }));
    await ui.findByText('Your code expires in 2:00.');
    expect(ui.server.callsTo(SMS_SEND)).toHaveLength(1);
  });

  it('offers no switch when the organization allows only one of the two', async () => {
    const ui = await loginToMfa(mfaServer(mfaRequired({ sms: true, totp: true, defaultMethod: 'sms_otp', allowed: ['totp'] })));
    await ui.findByRole('heading', { name: 'Enter verification code' });
    expect(ui.queryByRole('button', { name: 'Text me a code instead' })).toBeNull();
  });
});

describe('Recovery Code Entry', () => {
  async function openRecovery() {
    const ui = await loginToMfa(mfaServer(mfaRequired({ totp: true })));
    fireEvent.click(await ui.findByRole('button', { name: 'Can’t access your authenticator app? Use a backup code' }));
    await ui.findByRole('heading', { name: 'Enter backup code' });
    return ui;
  }

  it('requires a code, refuses a wrong one with the spec text, and logs in with a right one', async () => {
    const ui = await openRecovery();
    fireEvent.click(ui.getByRole('button', { name: 'Continue' }));
    expect(await ui.findByText('Enter a backup code.')).toBeTruthy();
    expect(ui.server.callsTo(RECOVER)).toHaveLength(0);

    ui.server.on('POST', RECOVER, apiError(401, 'unable_to_authenticate_recovery_code', 'server wording'));
    fireEvent.change(ui.getByLabelText('Backup code'), { target: { value: 'zzzz-zzzz-zzzz' } });
    fireEvent.click(ui.getByRole('button', { name: 'Continue' }));
    await waitFor(() => expect(ui.getByText('Invalid backup code, please try again.')).toBeTruthy());

    ui.server.on('POST', RECOVER, json({ ...loggedInResponse(), recovery_codes_remaining: 9 }));
    fireEvent.change(ui.getByLabelText('Backup code'), { target: { value: ' k7mq-3xbe-9ptw ' } });
    fireEvent.click(ui.getByRole('button', { name: 'Continue' }));
    expect(await ui.findByRole('heading', { name: 'Success!' })).toBeTruthy();
    expect(ui.server.callsTo(RECOVER).at(-1)!.body).toEqual({
      ...MEMBER,
      recovery_code: 'k7mq-3xbe-9ptw',
      session_duration_minutes: 45,
    });
    expect(getCookie(SESSION_COOKIE)).toBe('session-token-1');
  });

  it('back returns to the authenticator code', async () => {
    const ui = await openRecovery();
    fireEvent.click(ui.getByRole('button', { name: 'Back' }));
    expect(await ui.findByRole('heading', { name: 'Enter verification code' })).toBeTruthy();
  });
});
